"""contamination: benchmark items (the holdout texts) found in a training corpus of any size, under the published
definitions side by side (GPT-3, PaLM, Llama 2, longest contaminated substring, exact), every hit confirmed
word by word; the ids clean under a chosen definition are written beside the report.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from auditor.core.config import AuditConfig
from auditor.core.errors import StageInputError, StageNotApplicable
from auditor.core.findings import Finding, Severity, Table
from auditor.core.pathoptions import ConfinedPath
from auditor.core.scope import scope_of
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np

    from auditor.similarity.corpus import CorpusFile
    from auditor.similarity.corpusscan import DocHit, ScanOutcome
    from auditor.similarity.definitions import ItemState, Measured

CLEAN_FILE = "contamination.clean.txt"  # the clean subset, one id a line, beside the report
DefinitionKey = Literal["gpt3", "palm", "llama2", "longest", "exact"]
_TRAIN_ROWS = 50_000  # manifest training rows scanned per block when they are the corpus
_SNIPPET = 300  # characters of an ignored span shown
_PROBLEM_TEXT = {
    "not_json": "not JSON",
    "missing_field": "without the text field",
    "not_text": "whose text field is not a string",
    "not_utf8": "not UTF-8 (read with replacement characters)",
    "too_long": "longer than max_line_bytes (skipped)",
}
_FILES_NAMED = 5  # files a message names per problem
_TEMPLATE_LEAST = 10  # a template word is in more texts than this, as a frequent 8-gram is in more documents


class ContaminationOptions(StageOptions):
    corpus: ConfinedPath | None = Field(
        default=None,
        description="the training corpus: a JSONL(.gz/.zst) or Parquet file, a folder of them, or a glob; "
        "default: the manifest's training rows",
    )
    text: str = Field(default="text", description="the corpus's text field (JSON key or Parquet column)")
    fields: list[str] | None = Field(
        default=None,
        min_length=1,
        description="manifest columns joined (one per line) into each benchmark item; default: keys.text",
    )
    definition: DefinitionKey = Field(
        default="gpt3",
        description="the definition whose contaminated items fail the audit and whose clean subset is written",
    )
    palm_share: float = Field(default=0.7, gt=0, le=1, description="PaLM: share of the item's 8-grams in the corpus")
    llama2_clean: float = Field(
        default=0.2, gt=0, le=1, description="Llama 2: token share below which an item is clean"
    )
    llama2_dirty: float = Field(default=0.8, gt=0, le=1, description="Llama 2: token share from which an item is dirty")
    longest_share: float = Field(
        default=0.5, gt=0, le=1, description="longest substring: share of the item from which it is contaminated"
    )
    frequent_documents: int | None = Field(
        default=10,
        ge=1,
        description="an 8-gram of an item found in more than this many corpus documents is boilerplate (a licence "
        "header) and counts for no definition, as NeMo Curator's max_matches (10); it never clears an item one "
        "document holds at least `longest_share` of; null counts every n-gram",
    )
    template_share: float | None = Field(
        default=0.01,
        gt=0,
        le=1,
        description="without `corpus` (the training rows are the corpus): a word in at least this share of the "
        "manifest's texts, and in more than 10, is a template word (a form's fixed words and the values of its few "
        "slots); a shared span of nothing but 8-grams of template words, each in two other texts, counts for no "
        "definition, unless one training row holds `longest_share` of the item's other 8-grams; null counts every "
        "n-gram",
    )
    workers: int | None = Field(
        default=None, ge=1, le=64, description="worker processes (default: the cores there are)"
    )
    max_line_bytes: int = Field(
        default=64 << 20,
        ge=1024,
        description="a corpus line longer than this (bytes) is skipped and named in CTM004: a stray giant line "
        "costs one read, not memory",
    )
    max_expansion: int = Field(
        default=100,
        ge=1,
        description="a compressed shard is read until it has expanded to this many times its size on disk (at "
        "least 64 MiB), then named in CTM004 as not read to its end: a compression bomb never hangs the audit",
    )
    max_examples: int = Field(default=5, ge=1, le=50, description="most items a finding lists")
    max_documents: int = Field(default=3, ge=1, le=20, description="most corpus documents shown per item")

    @model_validator(mode="after")
    def _bands_ordered(self) -> ContaminationOptions:
        if self.llama2_clean > self.llama2_dirty:
            raise ValueError(
                "llama2_clean must not exceed llama2_dirty (Llama 2's clean band lies below its dirty band)"
            )
        return self


class Contamination(Stage):
    name = "contamination"
    summary = "benchmark (holdout) texts found in a training corpus under the published contamination definitions"
    needs = ("manifest", "keys.text or stages.contamination.fields (the benchmark texts)")
    codes: ClassVar[dict[str, str]] = {
        "CTM001": "benchmark items contaminated under the chosen definition",
        "CTM002": "benchmark items contaminated under another definition only",
        "CTM003": "contamination measured: the definitions side by side and the clean subset",
        "CTM004": "corpus lines or files that could not be read",
        "CTM005": "benchmark items too short for some definitions (not measurable)",
        "CTM006": "corpus files that are the manifest itself, left out",
        "CTM007": "benchmark items whose verdict the frequent n-gram or template rule changed, with the n-grams it "
        "ignored",
    }
    Options = ContaminationOptions
    out_of_core = True  # the benchmark is a few holdout rows; the corpus is streamed, or mapped over a cluster

    def missing_input(self, config: AuditConfig) -> str | None:
        assert isinstance(self.options, ContaminationOptions)
        if self.options.fields is None and config.keys.text is None:
            return "no benchmark texts: set `keys.text` or `stages.contamination.fields`"
        return None

    def run(self, context: AuditContext) -> Iterator[Finding]:
        import numpy as np

        from auditor.similarity.definitions import BY_KEY, DEFINITIONS, Thresholds, item_states, measure
        from auditor.similarity.ngrams import build_benchmark

        o = self.options
        assert isinstance(o, ContaminationOptions)
        manifest = context.require_manifest()
        rows, texts = self._benchmark(context)
        if not len(rows):
            raise StageInputError(
                "contamination: the manifest has no holdout rows, so there is no benchmark to measure"
            )
        bench = build_benchmark(texts)
        states = item_states(bench)
        fewest = min(d.min_words for d in DEFINITIONS)
        if not any(s.words >= fewest for s in states):
            # Titles, labels, short answers: nothing any definition measures, so nothing to scan the corpus for.
            longest = max((s.words for s in states), default=0)
            cjk = (
                "; a Han character weighs half a word, a kana character a third"
                if any(h is not None for h in bench.parts)
                else ""
            )
            raise StageNotApplicable(
                f"none of the {len(rows)} benchmark items has {fewest} words, the fewest any contamination "
                f"definition measures (the longest has {round(longest, 1):g}{cjk}); the items were not measured"
            )
        words = self._words(texts) if o.corpus is None and o.template_share is not None else None
        outcome, labels, train_rows, excluded, skipped, held = self._scan(context, bench, words)
        if not outcome.documents:
            raise StageInputError(
                f"contamination: no corpus document could be read ({self._not_read(outcome, labels, skipped)})"
            )
        if train_rows is None:
            self._refuse_fieldless(outcome, labels, context.loaded.base_dir)
        shown: dict[int, list[DocHit]] = {}
        for hit in outcome.hits:
            for item in sorted({r.item for r in hit.runs}):
                states[item].documents += 1
                mine = shown.setdefault(item, [])
                if len(mine) < o.max_documents:
                    mine.append(hit)
            for run in hit.runs:
                states[run.item].add(run)
        measured = measure(states, Thresholds(o.palm_share, o.llama2_clean, o.llama2_dirty, o.longest_share))
        ids = manifest.ids(rows)
        thresholds = Thresholds(o.palm_share, o.llama2_clean, o.llama2_dirty, o.longest_share)
        template = None
        if o.template_share is not None and words is not None and held is not None and train_rows is not None:
            texts_held = held + words.held  # the training rows and the holdout items holding each word
            bar = max(_TEMPLATE_LEAST + 1, math.ceil(o.template_share * (len(train_rows) + len(rows))))
            template = _Template(bar, [texts_held[w] for w in words.items])
        frequent = _Frequent.judge(o.frequent_documents, bench, outcome.hits, states, measured, thresholds, template)
        states, measured = frequent.states, frequent.measured
        chosen = BY_KEY[o.definition]
        table = self._table(measured, len(rows))
        corpus_text = f"{outcome.documents:,} corpus document(s)"
        bad = measured.contaminated[chosen.key]
        detail = _Detail(ids, states, measured, shown, labels, train_rows, manifest)
        if bad.any():
            picked = np.flatnonzero(bad)
            yield self.finding(
                "CTM001",
                Severity.ERROR,
                f"{len(picked)} of {len(rows)} benchmark item(s) are contaminated under {chosen.name} "
                f"({chosen.rule}), e.g. {', '.join(str(ids[i]) for i in picked[: o.max_examples])}; measured against "
                f"{corpus_text}.",
                key=chosen.key,
                evidence={
                    "definition": chosen.key,
                    "items": len(picked),
                    "of": len(rows),
                    "share": round(len(picked) / len(rows), 4),
                },
                examples=tuple(detail.example(i) for i in picked[: o.max_examples]),
                tables=(table,),
                scope=scope_of((str(ids[i]) for i in picked), {"items": len(picked)}),
                remediation="Report the score on the clean subset beside the full score, or remove these items' "
                "documents from the training corpus (GPT-3's removal window is shown per document).",
            )
        others = np.zeros(len(rows), bool)
        for d in DEFINITIONS:
            if d.key != chosen.key:
                others |= measured.contaminated[d.key]
        extra = np.flatnonzero(others & ~bad)
        if len(extra):
            by = {d.name: int((measured.contaminated[d.key] & ~bad).sum()) for d in DEFINITIONS if d.key != chosen.key}
            yield self.finding(
                "CTM002",
                Severity.WARNING,
                f"{len(extra)} benchmark item(s) that {chosen.name} does not count are contaminated under another "
                "definition: " + ", ".join(f"{k} {v}" for k, v in by.items() if v) + ".",
                key=chosen.key,
                evidence={"items": len(extra), "by_definition": by},
                examples=tuple(detail.example(i) for i in extra[: o.max_examples]),
                scope=scope_of((str(ids[i]) for i in extra), {"items": len(extra)}),
                remediation="Look at the matched spans: a partial copy can still be memorised; choose the definition "
                "the benchmark's authors report.",
            )
        clean = np.flatnonzero(measured.clean[chosen.key])
        yield self.finding(
            "CTM003",
            Severity.INFO,
            f"{len(clean)} of {len(rows)} benchmark item(s) are clean under {chosen.name}; their ids are written to "
            f"{CLEAN_FILE} in the report directory. Against {corpus_text}: "
            + ", ".join(f"{d.name} {int(measured.contaminated[d.key].sum())}" for d in DEFINITIONS)
            + " contaminated."
            + (
                f" The frequent n-gram {'and template rules' if frequent.template is not None else 'rule'} changed "
                f"{int(frequent.changed.sum())} item(s) (CTM007)."
                if frequent.changed.any()
                else ""
            ),
            key=chosen.key,
            evidence={
                "definition": chosen.key,
                "corpus_documents": outcome.documents,
                "corpus_files": len(labels) if train_rows is None else 0,
                "per_definition": {
                    d.key: {
                        "name": d.name,
                        "measurable": int(measured.measurable[d.key].sum()),
                        "contaminated": int(measured.contaminated[d.key].sum()),
                        "clean": int(measured.clean[d.key].sum()),
                    }
                    for d in DEFINITIONS
                },
                "llama2_bands": {b: int(m.sum()) for b, m in measured.bands.items()},
                "frequent_ngrams": frequent.summary(),
                "clean_subset": {
                    "file": CLEAN_FILE,
                    "definition": chosen.key,
                    "name": chosen.name,
                    "ids": [str(ids[i]) for i in clean],
                },
            },
            tables=(table,),
        )
        yield from self._changed(frequent, chosen.key, ids, bench)
        yield from self._problems(outcome, labels, skipped)
        yield from self._too_short(measured, ids)
        yield from self._itself(excluded)

    # -- inputs ------------------------------------------------------------------------------------------------

    def _benchmark(self, context: AuditContext) -> tuple[np.ndarray, list[str]]:
        """The holdout rows and their texts (the named fields joined one per line, empty fields left out)."""
        import numpy as np
        import pyarrow as pa

        o = self.options
        assert isinstance(o, ContaminationOptions)
        manifest = context.require_manifest()
        names = manifest.split_names
        held = [i for i, n in enumerate(names) if context.roles.role(n) == "holdout"]
        rows = np.flatnonzero(np.isin(manifest.split.codes, held))
        columns = o.fields or [context.config.keys.text or ""]
        parts = [manifest.take(c, rows).cast(pa.large_string()).to_pylist() for c in columns]
        texts = ["\n".join(p for p in row if p) for row in zip(*parts, strict=True)]
        return rows, texts

    def _words(self, texts: list[str]) -> _Words:
        """The benchmark's distinct words, each item's words as indices into them, and the items holding each."""
        import numpy as np
        import pyarrow as pa

        from auditor.similarity.boilerplate import texts_holding
        from auditor.similarity.ngrams import normal_words

        _, hashes, counts = normal_words(pa.array(texts, pa.large_string()))
        distinct = np.unique(hashes)
        at = np.searchsorted(distinct, hashes)
        items = np.split(at, np.cumsum(counts)[:-1]) if len(counts) else []
        return _Words(distinct, items, texts_holding(hashes, counts, distinct))

    def _scan(
        self, context: AuditContext, bench: Any, words: _Words | None
    ) -> tuple[ScanOutcome, list[str], np.ndarray | None, list[str], list[str], np.ndarray | None]:
        """The corpus pass: the named corpus, or the manifest's training rows; the corpus files left out because
        they are the manifest itself, the files of the corpus folder of a kind the reader does not open, and
        (training rows, with ``words``) how many rows hold each of the benchmark's words."""
        from auditor.backends.cluster import DaskManifest
        from auditor.similarity.corpus import CorpusLimits, corpus_files, unread_in_folder
        from auditor.similarity.corpusscan import scan, scan_mapped

        o = self.options
        assert isinstance(o, ContaminationOptions)
        if o.corpus is None:
            outcome, labels, rows, held = self._scan_train(context, bench, words)
            return outcome, labels, rows, [], [], held
        where = f"{context.loaded.locate(('stages', self.name, 'corpus'))}: stages.{self.name}.corpus"
        named = corpus_files(o.corpus, context.loaded.allowed_roots, where)
        base = context.loaded.base_dir
        files, itself = _without_manifest(named, context.require_manifest().files)
        excluded = [_relative(f.path, base) for f in itself]
        skipped = [_relative(p.resolve(), base) for p in unread_in_folder(o.corpus)]
        if not files:
            raise StageInputError(
                f"{where}: {o.corpus} names only the manifest itself ({', '.join(excluded)}), so every benchmark "
                "item would be found in its own copy; name the training corpus, or leave `corpus` out to measure "
                "against the manifest's training rows"
            )
        limits = CorpusLimits(o.max_line_bytes, o.max_expansion)
        labels = [_relative(f.path, base) for f in files]
        workers = o.workers or min(len(os.sched_getaffinity(0)), 8)
        total = sum(f.size for f in files)
        manifest = context.require_manifest()
        with _bar(total) as progress:
            task = progress.add_task("contamination: corpus", total=total)
            if isinstance(manifest, DaskManifest):  # each shard a task on the cluster; only the hits come back
                outcome = scan_mapped(
                    bench,
                    files,
                    o.text,
                    manifest.compute,
                    manifest.put,
                    batch=4 * manifest.threads,
                    progress=lambda done: progress.update(task, completed=done),
                    limits=limits,
                )
                return outcome, labels, None, excluded, skipped, None
            outcome = scan(
                bench,
                files,
                o.text,
                workers=min(workers, max(1, total // (4 << 20))),
                progress=lambda done: progress.update(task, completed=done),
                limits=limits,
            )
        return outcome, labels, None, excluded, skipped, None

    def _scan_train(
        self, context: AuditContext, bench: Any, words: _Words | None
    ) -> tuple[ScanOutcome, list[str], np.ndarray, np.ndarray | None]:
        """The training rows scanned as the corpus, and with ``words`` how many rows hold each benchmark word."""
        import numpy as np
        import pyarrow as pa

        from auditor.similarity.boilerplate import texts_holding
        from auditor.similarity.corpus import Parsed
        from auditor.similarity.corpusscan import ScanOutcome, scan_parsed
        from auditor.similarity.ngrams import normal_words

        o = self.options
        assert isinstance(o, ContaminationOptions)
        manifest = context.require_manifest()
        names = manifest.split_names
        train = [i for i, n in enumerate(names) if context.roles.role(n) == "train"]
        rows = np.flatnonzero(np.isin(manifest.split.codes, train))
        columns = o.fields or [context.config.keys.text or ""]
        outcome = ScanOutcome()
        held = None if words is None else np.zeros(len(words.distinct), np.int64)
        for a in range(0, len(rows), _TRAIN_ROWS):
            block = rows[a : a + _TRAIN_ROWS]
            parts = [manifest.take(c, block).cast(pa.large_string()).to_pylist() for c in columns]
            texts = ["\n".join(p for p in row if p) for row in zip(*parts, strict=True)]
            parsed = Parsed(pa.array(texts, pa.large_string()), np.arange(a, a + len(block), dtype=np.int64))
            normal = normal_words(parsed.texts)
            if held is not None and words is not None:
                held += texts_holding(normal[1], normal[2], words.distinct)
            outcome.hits.extend(scan_parsed(bench, parsed, 0, normal))
            outcome.documents += len(block)
        return outcome, ["the manifest's training rows"], rows, held

    # -- findings about the inputs -------------------------------------------------------------------------------

    def _not_read(self, outcome: ScanOutcome, labels: list[str], skipped: list[str]) -> str:
        if outcome.failed:
            parts = [f"{labels[i]}: {why}" for i, why in sorted(outcome.failed.items())]
        else:
            parts = self._bad_lines(outcome, labels)
        parts += [_skipped_text(skipped)] if skipped else []
        return "; ".join(parts) if parts else "the corpus holds no document"

    def _refuse_fieldless(self, outcome: ScanOutcome, labels: list[str], base: Path) -> None:
        """StageInputError naming each corpus file that gave no document: none of its lines holds the text field
        (chat-format `messages` beside `text` shards), a Parquet file without that column, every line unreadable
        (not JSON, not a text), or the file damaged from its start. Nothing of it was read, so a copy of a
        benchmark item there would go unseen. A file that gave some documents, or an empty one, is not refused
        (CTM004 names its bad lines)."""
        from auditor.similarity.corpus import CorpusFile, kind_of, line_fields

        o = self.options
        assert isinstance(o, ContaminationOptions)
        parts, damaged = [], []
        for f, label in enumerate(labels):
            if outcome.file_documents.get(f, 0):
                continue
            if f in outcome.no_column:
                has = list(outcome.no_column[f])
            elif not outcome.file_problems.get(f, {}).get("missing_field", 0):
                unread = self._unread(f, outcome)
                if unread:
                    damaged.append(f"{label}: {unread}")
                continue
            else:
                path = base / label
                kind = kind_of(path)
                if kind is not None and kind[0] == "parquet":  # the column is there, null in every row
                    has = [o.text]
                else:
                    try:
                        size = path.stat().st_size
                    except OSError:
                        size = 0
                    has = line_fields(CorpusFile(path, "jsonl", kind[1] if kind else None, size))
            parquet = label.lower().endswith(".parquet")
            what, unit = ("column", "row") if parquet else ("field", "line")
            lines = outcome.file_problems.get(f, {}).get("missing_field", 0)
            whose = f"none of its {lines} {unit}(s) holds a" if lines else "it has no"
            if o.text in has:
                found = f"'{o.text}' is there but empty (null) on every {unit}"
            else:
                found = f"its {what}s: {', '.join(repr(h) for h in has[:10])}" if has else f"no {what} could be read"
            parts.append(f"{label}: {whose} text in the {what} '{o.text}' ({found})")
        if parts or damaged:
            fixes = (
                [
                    "set `stages.contamination.text` to the field these files hold, or audit them in a corpus of "
                    "their own"
                ]
                if parts
                else []
            ) + (["repair or replace the unreadable files"] if damaged else [])
            raise StageInputError(
                "contamination: corpus file(s) from which no document could be read: "
                + "; ".join(parts + damaged)
                + ". A benchmark item copied there would go unseen; "
                + "; ".join(fixes)
            )

    @staticmethod
    def _unread(f: int, outcome: ScanOutcome) -> str:
        """Why file ``f``, which gave no document, gave none ('' for an empty file: nothing in it was missed)."""
        problems = {k: n for k, n in outcome.file_problems.get(f, {}).items() if n}
        if problems:
            said = ", ".join(f"{n} {_PROBLEM_TEXT.get(k, k)}" for k, n in problems.items())
            return f"none of its {sum(problems.values())} line(s) could be read as a document ({said})"
        if f in outcome.failed:
            return f"it could not be read ({outcome.failed[f]})"
        return ""

    def _bad_lines(self, outcome: ScanOutcome, labels: list[str]) -> list[str]:
        """Per problem: how many lines, in which files (the first few named, each with its count and first line)."""
        first: dict[tuple[int, str], int] = {}
        for f, line, problem in outcome.examples:
            first.setdefault((f, problem), line)
        parts = []
        for problem, text in _PROBLEM_TEXT.items():
            files = [(f, counts[problem]) for f, counts in sorted(outcome.file_problems.items()) if counts.get(problem)]
            if not files:
                continue
            named = ", ".join(
                f"{labels[f]}: {n}" + (f" from line {first[f, problem]}" if (f, problem) in first else "")
                for f, n in files[:_FILES_NAMED]
            )
            more = f" and {len(files) - _FILES_NAMED} more file(s)" if len(files) > _FILES_NAMED else ""
            parts.append(f"{sum(n for _, n in files)} line(s) {text} ({named}{more})")
        return parts

    def _problems(self, outcome: ScanOutcome, labels: list[str], skipped: list[str]) -> Iterator[Finding]:
        o = self.options
        assert isinstance(o, ContaminationOptions)
        counts = {k: v for k, v in outcome.problems.items() if v}
        if not counts and not outcome.failed and not skipped:
            return
        parts = self._bad_lines(outcome, labels)
        parts += [f"{labels[i]} not read to its end ({why})" for i, why in sorted(outcome.failed.items())]
        parts += [_skipped_text(skipped)] if skipped else []
        unmeasured = sum(v for k, v in counts.items() if k != "not_utf8")
        yield self.finding(
            "CTM004",
            Severity.WARNING,
            "the corpus was not read in full: "
            + "; ".join(parts)
            + ". "
            + (f"{unmeasured} line(s) gave no document; " if unmeasured else "")
            + "a clean verdict covers only what was read.",
            evidence={
                "lines": counts,
                "per_file": {labels[f]: dict(c) for f, c in sorted(outcome.file_problems.items())},
                "files_not_read": {labels[i]: why for i, why in sorted(outcome.failed.items())},
                "files_skipped": skipped,
                "limits": {"max_line_bytes": o.max_line_bytes, "max_expansion": o.max_expansion},
            },
            examples=tuple(
                {"file": labels[f], "line": line, "problem": p} for f, line, p in outcome.examples[: o.max_examples]
            ),
            remediation="Repair or re-export the named lines and files, then audit again; a line or a shard cut at "
            "a limit is read in full once `max_line_bytes` or `max_expansion` is raised.",
        )

    def _itself(self, excluded: list[str]) -> Iterator[Finding]:
        if not excluded:
            return
        yield self.finding(
            "CTM006",
            Severity.WARNING,
            f"the corpus named the manifest itself ({', '.join(excluded)}): left out, since every benchmark item "
            "would be found in its own copy there. The rest of the corpus was measured.",
            evidence={"files_left_out": excluded},
            examples=tuple({"file": f} for f in excluded[:5]),
            remediation="Narrow `stages.contamination.corpus` so that it names the training corpus only.",
        )

    def _too_short(self, measured: Measured, ids: list[str | int]) -> Iterator[Finding]:
        import numpy as np

        from auditor.similarity.definitions import DEFINITIONS

        short = {d: np.flatnonzero(~measured.measurable[d.key]) for d in DEFINITIONS}
        if not any(len(v) for v in short.values()):
            return
        any_short = np.flatnonzero(np.logical_or.reduce([~measured.measurable[d.key] for d in DEFINITIONS]))
        yield self.finding(
            "CTM005",
            Severity.INFO,
            "benchmark items too short to be measured (neither clean nor contaminated under that definition): "
            + ", ".join(f"{d.name} (under {d.min_words} words) {len(v)}" for d, v in short.items() if len(v))
            + ".",
            evidence={"not_measurable": {d.key: len(v) for d, v in short.items()}},
            examples=tuple({"id": ids[i]} for i in any_short[:5]),
        )

    def _changed(self, frequent: _Frequent, chosen: str, ids: list[str | int], bench: Any) -> Iterator[Finding]:
        import numpy as np

        from auditor.similarity.definitions import BY_KEY, DEFINITIONS

        o = self.options
        assert isinstance(o, ContaminationOptions)
        changed = np.flatnonzero(frequent.changed)
        if not len(changed):
            return
        by = frequent.summary()["items_changed"]
        why = []
        if frequent.limit is not None:
            why.append(f"in more than {frequent.limit} corpus documents (boilerplate such as a licence header)")
        if frequent.template is not None:
            why.append(
                f"made of words in at least {frequent.template.bar} of the manifest's texts and held by other texts "
                "(the template of texts written from one form, and slot values that recur by chance)"
            )
        evidence: dict[str, Any] = {"more_than_documents": frequent.limit, "items": len(changed), "by_definition": by}
        if frequent.template is not None:
            evidence["template_words_in_texts"] = frequent.template.bar
        yield self.finding(
            "CTM007",
            Severity.INFO,
            f"{len(changed)} benchmark item(s) were found only through 8-grams "
            + " or ".join(why)
            + " and are judged without them: "
            + ", ".join(f"{BY_KEY[k].name} {v}" for k, v in by.items() if v)
            + f" item(s) no longer contaminated ({BY_KEY[chosen].name} is the verdict), e.g. "
            + ", ".join(str(ids[i]) for i in changed[: o.max_examples])
            + ".",
            key=chosen,
            evidence=evidence,
            examples=tuple(
                {
                    "id": ids[i],
                    "was_contaminated_under": [d.key for d in DEFINITIONS if frequent.before.contaminated[d.key][i]],
                    "contaminated_under": [d.key for d in DEFINITIONS if frequent.measured.contaminated[d.key][i]],
                    "ignored": [
                        {
                            "item_words": [s.start, s.start + s.words],
                            "span": " ".join(bench.words[i][s.start : s.start + s.words])[:_SNIPPET],
                            "documents": s.documents,
                        }
                        for s in frequent.spans(int(i))[:3]
                    ],
                }
                for i in changed[: o.max_examples]
            ),
            scope=scope_of((str(ids[i]) for i in changed), {"items": len(changed)}),
            remediation="Read the ignored spans: they are what many training documents share with the item. Set "
            "`frequent_documents` higher, or to null, to count them"
            + ("; `template_share` to null counts the template's." if frequent.template is not None else "."),
        )

    def _table(self, measured: Measured, n: int) -> Table:
        from auditor.similarity.definitions import DEFINITIONS

        rows = []
        for d in DEFINITIONS:
            m, c = int(measured.measurable[d.key].sum()), int(measured.contaminated[d.key].sum())
            rows.append((d.name, d.source, d.rule, m, c, f"{c / m:.1%}" if m else "–"))
        return Table(
            title=f"benchmark contamination, {n} item(s), per definition",
            columns=("definition", "source", "contaminated when", "measurable items", "contaminated", "share"),
            rows=tuple(rows),
        )


@dataclass(frozen=True)
class _Words:
    """The benchmark's distinct words (hashes, sorted), each item's words as indices into them, and how many
    holdout items hold each."""

    distinct: np.ndarray
    items: list[np.ndarray]
    held: np.ndarray


@dataclass(frozen=True)
class _Template:
    """The template rule's inputs: the texts (training rows and holdout items) a template word is in at least,
    and per item, per word, the texts it is in."""

    bar: int
    words_held: list[np.ndarray]


class _Frequent:
    """The frequent n-gram and template rules applied: each item's states and verdicts without its frequent and
    template 8-grams, unless one corpus document holds at least `longest_share` of its own (a copy stays a copy,
    however many documents hold it)."""

    def __init__(
        self,
        limit: int | None,
        states: list[ItemState],
        measured: Measured,
        before: Measured,
        counts: list[np.ndarray],
        kept_as_copies: int,
        ignored: list[np.ndarray] | None = None,
        template: _Template | None = None,
    ) -> None:
        import numpy as np

        from auditor.similarity.definitions import DEFINITIONS

        self.limit, self.states, self.measured, self.before = limit, states, measured, before
        self.counts, self.kept_as_copies = counts, kept_as_copies
        self.ignored, self.template = ignored or [], template
        self.changed = np.zeros(len(states), bool)
        for d in DEFINITIONS:
            self.changed |= measured.contaminated[d.key] != before.contaminated[d.key]

    @classmethod
    def judge(
        cls,
        limit: int | None,
        bench: Any,
        hits: list[DocHit],
        states: list[ItemState],
        measured: Measured,
        thresholds: Any,
        template: _Template | None = None,
    ) -> _Frequent:
        import numpy as np

        from auditor.similarity.boilerplate import document_counts, items_holding, template_grams, trimmed
        from auditor.similarity.definitions import measure
        from auditor.similarity.ngrams import SEED

        if limit is None and template is None:
            return cls(None, states, measured, measured, [], 0)
        counts = document_counts(bench.lengths(), hits)
        holding = items_holding(bench)
        frequent = [c > limit if limit is not None else np.zeros(len(c), bool) for c in counts]
        # What the benchmark's items share among themselves is no copy of one of them: a document that holds the
        # disclaimer every ticket ends with holds more than half of a short ticket, yet copies none. So a copy is
        # a run holding `longest_share` of an item's own 8-grams (those not in more than `limit` items, nor
        # template); of an item with none of its own, of all its 8-grams, as before.
        own = [h <= limit if limit is not None else np.ones(len(h), bool) for h in holding]
        tmpl = [np.zeros(len(c), bool) for c in counts]
        if template is not None:
            # The texts holding an 8-gram besides the item: the training rows and the other holdout items.
            others = [c + h - 1 for c, h in zip(counts, holding, strict=True)]
            tmpl = template_grams(template.words_held, template.bar, others)
            own = [o & ~t for o, t in zip(own, tmpl, strict=True)]
        ignored = [f.copy() for f in frequent]
        lengths = bench.lengths()
        trimmed_states = [s.fresh() for s in states]
        copies = np.zeros(len(states), bool)
        for hit in hits:
            for run in hit.runs:
                for part in trimmed(run, frequent[run.item]):
                    grams = slice(part.item_start, part.item_start + part.length - SEED + 1)
                    if tmpl[part.item][grams].all():
                        # Template only: what texts written from one form share by chance. A run that also
                        # holds a word of the item's own is kept whole, so a copy is measured at its length.
                        ignored[part.item][grams] = True
                        continue
                    trimmed_states[part.item].add(part)
                first, last = run.item_start, run.item_start + run.length - SEED + 1
                mine = own[run.item]
                if mine.any():
                    copies[run.item] |= mine[first:last].sum() >= thresholds.longest_share * mine.sum()
                else:
                    copies[run.item] |= run.length >= thresholds.longest_share * lengths[run.item]
        final, kept = [], 0
        for i, (raw, rest) in enumerate(zip(states, trimmed_states, strict=True)):
            if not ignored[i].any():
                final.append(raw)
                continue
            if copies[i]:
                kept += 1
                final.append(raw)
                continue
            rest.documents = raw.documents
            final.append(rest)
        return cls(limit, final, measure(final, thresholds), measured, counts, kept, ignored, template)

    def spans(self, item: int) -> list[Any]:
        from auditor.similarity.boilerplate import frequent_spans

        return frequent_spans(self.counts[item], self.ignored[item])

    def summary(self) -> dict[str, Any]:
        from auditor.similarity.definitions import DEFINITIONS

        out: dict[str, Any] = {
            "more_than_documents": self.limit,
            "items_changed": {
                d.key: int((self.before.contaminated[d.key] & ~self.measured.contaminated[d.key]).sum())
                for d in DEFINITIONS
            },
            "items_kept_as_copies": self.kept_as_copies,
        }
        if self.template is not None:
            out["template_words_in_texts"] = self.template.bar
        return out


class _Detail:
    """How one item is shown: its scores and the corpus documents it was found in."""

    def __init__(
        self,
        ids: list[str | int],
        states: list[ItemState],
        measured: Measured,
        shown: dict[int, list[DocHit]],
        labels: list[str],
        train_rows: np.ndarray | None,
        manifest: Any,
    ) -> None:
        self.ids, self.states, self.measured, self.shown = ids, states, measured, shown
        self.labels, self.train_rows, self.manifest = labels, train_rows, manifest

    def example(self, item: int) -> dict[str, Any]:
        from auditor.similarity.definitions import DEFINITIONS

        m = self.measured
        out: dict[str, Any] = {
            "id": self.ids[item],
            "words": self.states[item].length,
            "contaminated_under": [d.key for d in DEFINITIONS if m.contaminated[d.key][item]],
            "palm_8gram_share": round(float(m.score["palm"][item]), 3),
            "llama2_token_share": round(float(m.score["llama2"][item]), 3),
            "longest_words": int(m.longest[item]),
            "corpus_documents": self.states[item].documents,
            "documents": [self._document(hit, item) for hit in self.shown.get(item, [])],
        }
        return out

    def _document(self, hit: DocHit, item: int) -> dict[str, Any]:
        k = max((j for j, r in enumerate(hit.runs) if r.item == item), key=lambda j: hit.runs[j].length)
        run = hit.runs[k]
        where: dict[str, Any]
        if self.train_rows is not None:
            where = {"train_id": self.manifest.ids([int(self.train_rows[hit.line])])[0]}
        else:
            key = "row" if self.labels[hit.file].endswith(".parquet") else "line"
            where = {"file": self.labels[hit.file], key: hit.line}
        doc: dict[str, Any] = {
            **where,
            "span_words": run.length,
            "item_words": [run.item_start, run.item_start + run.length],
            "span": hit.snippets[k],
        }
        if hit.spans[k] is not None:
            doc["chars"] = list(hit.spans[k] or ())
        if hit.removal is not None:
            doc["gpt3_removal"] = {
                "removed_chars": hit.removal.removed_chars,
                "pieces_kept": hit.removal.pieces,
                "document_removed": hit.removal.dropped,
            }
        return doc


def _without_manifest(
    files: list[CorpusFile], manifest_files: tuple[Path, ...]
) -> tuple[list[CorpusFile], list[CorpusFile]]:
    """The corpus files apart from the manifest's own files (its items would match themselves), and those."""
    from auditor.core.paths import same_file

    itself = [f for f in files if any(same_file(f.path, m) for m in manifest_files)]
    return [f for f in files if f not in itself], itself


def _skipped_text(skipped: list[str]) -> str:
    """The files of the corpus folder left unread, for a message (the first few named)."""
    named = ", ".join(skipped[:_FILES_NAMED]) + (
        f" and {len(skipped) - _FILES_NAMED} more" if len(skipped) > _FILES_NAMED else ""
    )
    return (
        f"{len(skipped)} file(s) in the corpus folder were not read, being of a kind the corpus reader does not "
        f"open ({named}; JSONL plain, .gz or .zst, and Parquet are read)"
    )


def _relative(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def _bar(total: int) -> Any:
    """The corpus pass's progress bar (bytes read of the corpus's size), shown on a terminal only."""
    from auditor.manifest.content import _progress

    return _progress(total)


__all__ = ["CLEAN_FILE", "Contamination", "ContaminationOptions"]
