"""The lowest severity each finding code of the installed stages is ever reported at.

A report made elsewhere (an upload to the service) says each finding's severity; where a code is never reported
below a severity, a lower one is a report edited after the audit, and the service refuses it. A code whose
severity depends on the data (error or warning, by the split pair or what a leak reaches) is listed at its lower
one: that much is all a report can be held to without the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from auditor.core.findings import Severity

INFO, WARNING, ERROR = Severity.INFO, Severity.WARNING, Severity.ERROR

LOWEST: Mapping[str, Severity] = MappingProxyType(
    {
        # the runner's own checks of `accept` entries
        "ACC001": WARNING, "ACC002": WARNING, "ACC003": WARNING, "ACC004": WARNING,
        # batch_independence
        "BIX000": INFO, "BIX001": WARNING, "BIX002": INFO,
        # batch_inspect
        "BAT000": INFO, "BAT001": INFO, "BAT002": ERROR, "BAT003": ERROR, "BAT004": ERROR, "BAT005": WARNING,
        "BAT006": ERROR, "BAT007": ERROR, "BAT008": ERROR,
        # broadcast
        "BRD001": ERROR, "BRD002": ERROR, "BRD003": ERROR,
        # code_leakage
        "CDL000": WARNING, "CDL001": WARNING, "CDL002": WARNING, "CDL003": WARNING, "CDL004": WARNING,
        "CDL005": WARNING, "CDL006": WARNING, "CDL009": INFO,
        # contamination
        "CTM001": ERROR, "CTM002": WARNING, "CTM003": INFO, "CTM004": WARNING, "CTM005": INFO, "CTM006": WARNING,
        "CTM007": INFO,
        # detached_graph
        "GRD000": INFO, "GRD001": ERROR, "GRD002": WARNING, "GRD003": WARNING, "GRD004": ERROR, "GRD005": INFO,
        "GRD006": WARNING, "GRD007": INFO,
        # duplicate_content
        "DUP001": ERROR, "DUP002": WARNING, "DUP003": ERROR, "DUP004": INFO, "DUP005": WARNING, "DUP006": INFO,
        "DUP007": WARNING, "DUP008": INFO,
        # eval_mode
        "EVM000": INFO, "EVM001": ERROR, "EVM002": ERROR,
        # feature_leakage
        "FLK000": INFO, "FLK001": ERROR, "FLK002": WARNING, "FLK003": WARNING, "FLK004": INFO,
        # fitted_statistics
        "FIT000": INFO, "FIT001": ERROR, "FIT002": WARNING, "FIT003": WARNING, "FIT004": INFO, "FIT005": ERROR,
        "FIT006": ERROR, "FIT007": WARNING, "FIT008": ERROR, "FIT009": INFO, "FIT010": ERROR, "FIT011": WARNING,
        # group_overlap
        "GRP001": ERROR, "GRP002": WARNING, "GRP003": INFO, "GRP004": INFO, "GRP005": WARNING,
        # label_coverage
        "LAB000": INFO, "LAB001": WARNING, "LAB002": WARNING, "LAB003": WARNING, "LAB004": WARNING, "LAB005": WARNING,
        # loss_activation
        "ACT000": INFO, "ACT001": ERROR, "ACT002": ERROR, "ACT003": ERROR, "ACT004": ERROR, "ACT005": WARNING,
        "ACT006": ERROR,
        # near_duplicates
        "NDP001": ERROR, "NDP002": WARNING, "NDP003": INFO, "NDP004": WARNING, "NDP005": WARNING, "NDP006": INFO,
        "NDP007": INFO, "NDP008": INFO, "NDP009": ERROR, "NDP010": INFO, "NDP011": WARNING, "NDP012": INFO,
        # nonfinite_trace
        "NAN000": INFO, "NAN001": ERROR, "NAN002": ERROR, "NAN003": INFO,
        # shared_upstream
        "UPS001": ERROR, "UPS002": WARNING, "UPS003": INFO, "UPS004": INFO, "UPS005": WARNING,
        # split_integrity
        "SPL000": INFO, "SPL001": ERROR, "SPL002": WARNING, "SPL003": WARNING, "SPL004": ERROR, "SPL005": WARNING,
        "SPL006": ERROR, "SPL007": WARNING, "SPL008": WARNING, "SPL009": WARNING, "SPL010": INFO,
        "SPL011": WARNING, "SPL012": INFO, "SPL013": ERROR, "SPL014": ERROR,
        # stable_softmax
        "SMX000": INFO, "SMX001": ERROR, "SMX002": ERROR, "SMX003": WARNING, "SMX004": ERROR, "SMX005": ERROR,
        # temporal_order
        "TMP001": WARNING, "TMP002": ERROR, "TMP003": INFO, "TMP004": INFO, "TMP005": WARNING, "TMP006": WARNING,
        "TMP007": WARNING, "TMP008": WARNING,
        # test_exposure
        "EXP000": INFO, "EXP001": INFO, "EXP002": INFO,
        # token_alignment
        "TOK000": INFO, "TOK001": ERROR, "TOK002": ERROR, "TOK003": ERROR, "TOK004": ERROR, "TOK005": INFO,
        "TOK006": ERROR,
        # train_step
        "STP000": INFO, "STP001": ERROR, "STP002": ERROR, "STP003": ERROR, "STP004": WARNING, "STP005": WARNING,
        "STP006": WARNING,
    }
)  # fmt: skip


def lowest_severity(code: str) -> Severity | None:
    """The lowest severity ``code`` is reported at; None for a code no installed stage declares (a plugin's)."""
    return LOWEST.get(code)
