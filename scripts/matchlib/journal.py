"""A resumable record of finished work (soak batches, match games): one JSON line per finished
unit, after a first line with the plan's parameters. A rerun with the same plan skips what is
recorded; a journal written for another plan is refused rather than mixed in. Killed while
writing, it loses at most the unit it was writing."""
import json
import os


class Journal:
    def __init__(self, path, params):
        self.path = path
        self.records = {}
        data = b""
        if os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read()
        lines = data.decode("utf-8", errors="replace").split("\n")
        if lines[0].strip() and b"\n" in data:
            # The plan is checked before anything is changed: a refused file stays as it was.
            try:
                head = json.loads(lines[0])
                plan = head.get("plan")
            except (json.JSONDecodeError, AttributeError):
                raise SystemExit(f"{path} is not a journal (its first line is not a plan)")
            if plan != params:
                raise SystemExit(f"{path} was written for another plan ({plan}); "
                                 f"this one is {params}: use another journal file")
            if not data.endswith(b"\n"):
                # Killed while writing a line: drop the part line so the next one starts clean.
                with open(path, "rb+") as f:
                    f.truncate(data.rfind(b"\n") + 1)
            for line in lines[1:-1]:          # the last piece is empty or a part line
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    key = rec["key"] if "key" in rec else rec["batch"]   # "batch": older soak journals
                    self.records[_key(key)] = rec["result"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue   # not a whole record: that unit is done again
        else:
            # A new journal (or one whose plan line was cut off by a kill): start it.
            if data.strip() and not data.startswith(b'{"plan"'):
                raise SystemExit(f"{path} is not a journal (its first line is not a plan)")
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps({"plan": params}) + "\n")

    def done(self, key):
        """The record stored for `key` (a value or a list/tuple of values), or None."""
        return self.records.get(_key(key))

    def add(self, key, record):
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"key": list(key) if isinstance(key, (list, tuple)) else key,
                                "result": record}) + "\n")
            # One line per game or batch: cheap enough to make each survive a power cut.
            f.flush()
            os.fsync(f.fileno())
        self.records[_key(key)] = record


def _key(key):
    return tuple(key) if isinstance(key, (list, tuple)) else key


class Scope:
    """One part of a journal (a gauntlet's opponent, say): its keys are prefixed with `name`."""

    def __init__(self, journal, name):
        self.journal, self.name = journal, name

    def done(self, key):
        return self.journal.done([self.name, key])

    def add(self, key, record):
        self.journal.add([self.name, key], record)
