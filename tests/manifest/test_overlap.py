from __future__ import annotations

from auditor.manifest.overlap import share_text


def test_small_shares_do_not_read_as_zero() -> None:
    exposure = {"test": {"rows": 9, "of": 200459, "share": 9 / 200459}, "val": {"rows": 3, "of": 8, "share": 3 / 8}}
    text = share_text(exposure)
    assert text == "test 9 of 200459 (<0.1%), val 3 of 8 (38%)"
