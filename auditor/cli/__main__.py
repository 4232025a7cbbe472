"""`python -m auditor.cli`: the `audit` command."""

from auditor.cli.app import main

if __name__ == "__main__":
    main()
