"""A HERMES_HOME laid out byte for byte the way Hermes Agent 0.19 writes it.

- memories/MEMORY.md and USER.md: entries joined by "\\n§\\n", no trailing newline (tools/memory_tool.py,
  MemoryStore._write_file); entries may span several lines and contain "§" inside a line.
- skills/<category>/<name>/SKILL.md: YAML front matter (name, description, version, platforms, metadata.hermes
  tags, as skill_manage validates them) with references/, templates/, scripts/ beside it; a category's
  DESCRIPTION.md; `.hub/` and `.archive/` folders Hermes keeps and never treats as skills.
- config.yaml with `skills.disabled` and `memory.*`, SOUL.md.
"""

from __future__ import annotations

from pathlib import Path

MEMORY_ENTRIES = [
    "Project zebra deploys with `make ship`; staging is zebra-stg.internal.",
    "The CI runner has no network: vendor wheels under ./wheels.\nUse `pip install --no-index -f wheels`.",
    "Section § 4 of the runbook is obsolete.",
]
USER_ENTRIES = ["Name: Ada. Prefers short answers and tabs over spaces.", "Works in UTC+2."]

ZEBRA_SKILL = """---
name: zebra-deploy
description: Deploy the zebra service to staging and production with make ship
version: 1.2.0
metadata:
  hermes:
    tags: [deploy, zebra]
    related_skills: [rollback-plan]
---

# Zebra deploy

1. Run `scripts/preflight.sh`.
2. Run `make ship ENV=staging` and watch `references/dashboards.md`.
3. Promote with `make ship ENV=prod`.

## Pitfalls
- Never deploy on Fridays.
"""

AXOLOTL_SKILL = """---
name: axolotl
description: "Fine-tune LLMs with Axolotl: YAML configs, LoRA and multi-GPU runs"
platforms: [linux, macos]
---

# Axolotl

Use `axolotl train config.yml`.
"""

MAC_ONLY_SKILL = """---
name: imessage
description: Send iMessages from the terminal
platforms: [macos]
---

Use osascript.
"""

PLAIN_SKILL = """---
name: note-taking
description: Keep a running NOTES.md while working
---

Append a line to NOTES.md after each step.
"""


def write_hermes_home(home: Path) -> Path:
    """Fill `home` like a Hermes install that has been used for a while; returns it."""
    memories = home / "memories"
    memories.mkdir(parents=True, exist_ok=True)
    (memories / "MEMORY.md").write_text("\n§\n".join(MEMORY_ENTRIES), encoding="utf-8")
    (memories / "USER.md").write_text("\n§\n".join(USER_ENTRIES), encoding="utf-8")

    skills = home / "skills"
    zebra = skills / "devops" / "zebra-deploy"
    (zebra / "references").mkdir(parents=True)
    (zebra / "scripts").mkdir()
    (zebra / "templates").mkdir()
    (zebra / "SKILL.md").write_text(ZEBRA_SKILL, encoding="utf-8")
    (zebra / "references" / "dashboards.md").write_text("# Dashboards\nGrafana: zebra-overview\n")
    (zebra / "scripts" / "preflight.sh").write_text("#!/bin/sh\necho preflight ok\n")
    (zebra / "templates" / "release-notes.md").write_text("## Release {version}\n")
    (skills / "devops" / "DESCRIPTION.md").write_text(
        "---\ndescription: Deploying and operating services\n---\n"
    )
    axolotl = skills / "mlops" / "training" / "axolotl"
    axolotl.mkdir(parents=True)
    (axolotl / "SKILL.md").write_text(AXOLOTL_SKILL, encoding="utf-8")
    imessage = skills / "apple" / "imessage"
    imessage.mkdir(parents=True)
    (imessage / "SKILL.md").write_text(MAC_ONLY_SKILL, encoding="utf-8")
    plain = skills / "note-taking"
    plain.mkdir()
    (plain / "SKILL.md").write_text(PLAIN_SKILL, encoding="utf-8")
    # Hermes' own bookkeeping folders: never skills.
    (skills / ".hub" / "cache" / "x").mkdir(parents=True)
    (skills / ".hub" / "cache" / "x" / "SKILL.md").write_text("---\nname: hub-copy\ndescription: x\n---\nx\n")
    (skills / ".archive" / "old").mkdir(parents=True)
    (skills / ".archive" / "old" / "SKILL.md").write_text("---\nname: old\ndescription: x\n---\nx\n")
    # An archived package kept as a reference of a live skill is data, not a skill.
    (zebra / "references" / "v1").mkdir()
    (zebra / "references" / "v1" / "SKILL.md").write_text("---\nname: zebra-v1\ndescription: x\n---\nx\n")

    (home / "config.yaml").write_text(
        "# Hermes configuration\n"
        "model:\n  default: anthropic/claude-sonnet-4\n  provider: openrouter\n"
        "memory:\n  memory_enabled: true\n  user_profile_enabled: true\n  nudge_interval: 10\n"
        "skills:\n  disabled: [note-taking]\n  creation_nudge_interval: 15\n",
        encoding="utf-8",
    )
    (home / "SOUL.md").write_text("You are Hermes, Ada's patient pair programmer.\n", encoding="utf-8")
    return home


# ------------------------------------------------------------------------------------- made by Hermes itself

FIXTURE_0_19 = Path(__file__).resolve().parent / "fixtures" / "hermes_home_0_19"
"""A HERMES_HOME made by Hermes Agent 0.19.0 itself against the scripted server (see its README.md):
state.db (schema 22, WAL mode, checkpointed: no -wal/-shm) with three `cli` sessions: a `terminal` call
whose answer says "quokka", a plain answer saying "zebra", memory + skill_manage calls."""

QUOKKA_SESSION = "20261201_080833_f1293b"
ZEBRA_SESSION = "20261201_080922_1adb77"
SKILL_SESSION = "20261201_080947_8d355e"


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under `root` (relative path -> sha256): a file created next to another shows too."""
    import hashlib

    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def copy_hermes_home_0_19(dest: Path) -> Path:
    """A copy of the Hermes-made home at `dest` (tests read the copy, never the original)."""
    import shutil

    shutil.copytree(FIXTURE_0_19, dest)
    return dest


def utc_clock(monkeypatch: object) -> None:
    """Local time = UTC for the rest of the test: the Hermes-made fixture's times are fixed instants, so a
    picture of them must not depend on the machine's time zone. `monkeypatch` restores TZ afterwards;
    call `time.tzset()` again then (the `utc_time` fixture in tests does)."""
    import time

    monkeypatch.setenv("TZ", "UTC")  # type: ignore[attr-defined]
    time.tzset()
