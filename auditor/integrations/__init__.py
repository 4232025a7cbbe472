"""Where teams already work: a pytest plugin and MLflow logging, thin layers over api.py and render/.

Nothing here is imported by ``import auditor``; the pytest plugin module loads in every pytest session of an
environment with the package installed, so it imports nothing heavy until a session asks for an audit.
"""
