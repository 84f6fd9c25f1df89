"""What inline interpreter code (python -c, perl -e, node --eval, awk, heredoc'd scripts) does to the shell
and the file system, read from its text: the commands it hands to a shell or runs as an argument list, and
the files it deletes or writes when their paths are string literals.

This is not a parser for those languages: it looks for the calls that matter (`os.system`, `subprocess.*`,
`execSync`, backticks, `shutil.rmtree`, `os.remove`, `open(p, "w")`, ...) and is deliberately conservative:
once code can run a command, every string literal in it is treated as a possible command (a string built
in one statement and run in the next is the common case).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent.shell.lexer import decode_escapes

_STR = r"""(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")"""
_STRING_RE = re.compile(_STR, re.S)
_LIST_RE = re.compile(r"\[([^\[\]]*)\]")
_EXEC_RE = re.compile(
    r"\b(os\.system|os\.popen|os\.exec\w*|os\.spawn\w*|subprocess\.\w+|popen|system|exec|execSync|spawnSync|"
    r"spawn|execFile|execFileSync|shell_exec|passthru|proc_open|Popen|check_call|check_output|getoutput|"
    r"getstatusoutput|IO\.popen|Open3\.\w+|os\.execute|io\.popen)\s*\(|\b(?:run|call)\s*\(\s*\[|`|%x\{|\bqx\b|"
    r"do shell script"
)
_SPAWN_RE = re.compile(
    r"\b(?:spawn|spawnSync|execFile|execFileSync)\s*\(\s*" + _STR + r"\s*,\s*\[([^\[\]]*)\]"
)
_BACKTICK_RE = re.compile(r"`([^`]*)`")
_RECURSIVE_RE = re.compile(r"\b(rmtree|rm_rf|rm_r|remove_dir_all|rmSync|rimraf|remove_tree)\b")
_DELETE_CALL_RE = re.compile(
    r"(\bos\.(?:remove|unlink|rmdir|removedirs)|\bshutil\.rmtree|\brmtree|\bremove_tree|\brimraf|"
    r"\bfs\.(?:promises\.)?(?:unlinkSync|unlink|rmSync|rm|rmdirSync|rmdir)|"
    r"\bFileUtils\.(?:rm_rf|rm_r|rm|remove_dir|remove_entry|rmdir)|\b(?:File|Dir)\.(?:delete|unlink|rmdir)|"
    r"(?<![.\w$])unlink|(?<![.\w$])rmdir)\s*\(?\s*" + _STR
)
_RECURSIVE_NAME_RE = re.compile(
    r"rmtree|rm_rf|rm_r\b|remove_tree|rimraf|rmSync|remove_dir|remove_entry|fs\.rm$"
)
_PATH_METHOD_RE = re.compile(
    r"\bPath\s*\(\s*" + _STR + r"\s*\)\s*\.\s*(unlink|rmdir|write_text|write_bytes|touch)"
)
_OPEN_WRITE_RE = re.compile(r"\b(?:open|fopen|File\.open)\s*\(\s*" + _STR + r"\s*,\s*" + _STR)
_PERL_OPEN_RE = re.compile(
    r"\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*(?:'(>>?|\+<)'|\"(>>?|\+<)\")\s*,\s*" + _STR
)
_PERL_OPEN2_RE = re.compile(r"\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*(?:'>>?\s*([^']+)'|\">>?\s*([^\"]+)\")")
_WRITE_CALL_RE = re.compile(
    r"\b(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|file_put_contents|"
    r"File\.write)\s*\(\s*" + _STR
)
_AWK_REDIRECT_RE = re.compile(r"\bprintf?\b[^;|}]*?>>?\s*" + _STR)


def _lit(m: re.Match[str], first: int = 1) -> str:
    """A string literal's value: escapes decoded as the language would (`'r\\\\m'` is `r\\m`, which a shell
    runs as `rm`)."""
    raw = m.group(first) if m.group(first) is not None else (m.group(first + 1) or "")
    return decode_escapes(raw) if "\\" in raw else raw


@dataclass
class CodeScan:
    shell: list[str] = field(default_factory=list)  # strings a shell may run
    argvs: list[list[str]] = field(default_factory=list)  # argument lists run without a shell
    deletes: list[tuple[str, bool]] = field(default_factory=list)  # (path or "" when unknown, recursive)
    writes: list[str] = field(default_factory=list)


def scan_code(code: str, language: str) -> CodeScan:
    out = CodeScan()
    if _EXEC_RE.search(code):
        for m in _STRING_RE.finditer(code):
            text = _lit(m)
            if text.strip():
                out.shell.append(text)
        for m in _LIST_RE.finditer(code):
            items = [_lit(s) for s in _STRING_RE.finditer(m.group(1))]
            if items:
                out.argvs.append(items)
        for m in _SPAWN_RE.finditer(code):
            out.argvs.append([_lit(m), *(_lit(s) for s in _STRING_RE.finditer(m.group(3)))])
        for m in _BACKTICK_RE.finditer(code):
            out.shell.append(m.group(1))
    for m in _DELETE_CALL_RE.finditer(code):
        out.deletes.append((_lit(m, 2), bool(_RECURSIVE_NAME_RE.search(m.group(1)))))
    if _RECURSIVE_RE.search(code) and not any(recursive for _, recursive in out.deletes):
        out.deletes.append(("", True))  # a tree removal whose path is not a literal
    for m in _PATH_METHOD_RE.finditer(code):
        if m.group(3) in ("unlink", "rmdir"):
            out.deletes.append((_lit(m), False))
        else:
            out.writes.append(_lit(m))
    for m in _OPEN_WRITE_RE.finditer(code):
        if re.search(r"[wax+]", _lit(m, 3)):
            out.writes.append(_lit(m))
    for m in _PERL_OPEN_RE.finditer(code):
        out.writes.append(_lit(m, 3))
    for m in _PERL_OPEN2_RE.finditer(code):
        out.writes.append(_lit(m).strip())
    for m in _WRITE_CALL_RE.finditer(code):
        out.writes.append(_lit(m))
    if language == "awk":
        for m in _AWK_REDIRECT_RE.finditer(code):
            out.writes.append(_lit(m))
    return out
