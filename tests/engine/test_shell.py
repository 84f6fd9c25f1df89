"""The shell model: lexing, option reading, unwrapping wrappers and shells, and each command's effects.

These pin what `agent.shell` reports for a command; tests/engine/tools/test_approval_table.py pins what the
gate concludes from it and tests/engine/test_checkpoint_coverage.py that the checkpoint planner agrees.
"""

from __future__ import annotations

import builtins
import os

import pytest

from agent.shell import Word, analyze, parse, shell_code, unwrap
from agent.shell.lexer import literal_output, substitution_output
from agent.shell.options import OptSpec, parse_options, resolve_long
from agent.shell.wrappers import interpreter_code, interpreter_for, powershell_code

# ---- lexer -----------------------------------------------------------------------------------------------


def words(text: str) -> list[list[str]]:
    return [[w.text for w in c.words] for p in parse(text) for c in p.commands]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("r'm' -rf x", [["rm", "-rf", "x"]]),
        ('"rm" -rf x', [["rm", "-rf", "x"]]),
        ("r\\m -rf x", [["rm", "-rf", "x"]]),
        ("$'\\x72\\x6d' x", [["rm", "x"]]),
        ("rm${IFS}-rf${IFS}x", [["rm", "-rf", "x"]]),
        ("$(echo rm) -rf x", [["rm", "-rf", "x"]]),
        ("`echo rm` -rf x", [["rm", "-rf", "x"]]),
        ("$(which rm) x", [["rm", "x"]]),
        ("echo \"a b\" 'c d'", [["echo", "a b", "c d"]]),
        ("ls # rm -rf /", [["ls"]]),
        ("a; b && c || d & e | f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]),
        ("echo 'unterminated", [["echo", "unterminated"]]),
        ('${x:-"rm"} -rf', [["${x:-rm}", "-rf"]]),
        ("f() { rm -rf x; }", [["f"], ["{", "rm", "-rf", "x"], ["}"]]),
    ],
)
def test_lexer_words(text: str, expected: list[list[str]]) -> None:
    assert words(text) == expected


def test_heredocs_here_strings_and_redirections_are_attached_to_their_command() -> None:
    (pipe, last) = parse("cat <<'EOF' > out.txt 2>&1\nrm -rf /\nEOF\nls")
    (cat,) = pipe.commands
    assert [w.text for w in cat.words] == ["cat"]
    assert [(r.fd, r.op, r.target.text if r.target else None) for r in cat.redirects] == [
        ("", "<<", "EOF"),
        ("", ">", "out.txt"),
        ("2", ">&", "1"),
    ]
    assert cat.redirects[0].body == "rm -rf /"  # data, not a command
    assert words("ls") == [[w.text for w in last.commands[0].words]]
    (herestring,) = parse('sh <<< "ls -la"')[0].commands
    assert herestring.redirects[0].body == "ls -la"


def test_substitutions_are_kept_for_the_caller_to_analyse() -> None:
    (cmd,) = parse("echo $(rm -rf x) <(curl -s url)")[0].commands
    assert cmd.words[1].subs == ("rm -rf x",) and cmd.words[2].procs == ("curl -s url",)
    assert cmd.words[2].text == "/dev/fd/63"
    assert substitution_output("printf '%s' rm", 1) == "rm"
    assert substitution_output("date", 1) is None
    assert literal_output([Word("echo"), Word("-e"), Word("a\\tb")]) == "a\tb"


def test_subshell_depth_is_recorded_for_cd_scoping() -> None:
    assert [p.subshell for p in parse("a; (cd x; b); c")] == [0, 1, 1, 0]


def test_the_lexer_never_raises() -> None:
    for text in ["'", '"', "\\", "$(", "`", "<<", "<<EOF", ">", "2>&", "((", "|||;;&&", "${", "${x:-", "$'"]:
        parse(text)
        analyze(text)


# ---- options ---------------------------------------------------------------------------------------------


def test_long_option_prefixes_resolve_like_getopt() -> None:
    known = {"recursive", "force", "force-with-lease", "hard", "help"}
    assert resolve_long("recur", known) == {"recursive"}
    assert resolve_long("har", known) == {"hard"}
    assert resolve_long("force", known) == {"force"}  # an exact match wins over longer options
    assert resolve_long("forc", known) == {"force", "force-with-lease"}
    assert resolve_long("h", known) == {"hard", "help"}  # ambiguous: every candidate (conservative)
    assert resolve_long("verbose", known) == {"verbose"}


def test_bundled_short_options_and_their_arguments() -> None:
    spec = OptSpec.of("ot", "output target-directory", "recursive")
    opts = parse_options(["-rfo", "out.txt", "src", "--target-dir=d", "--", "-x"], spec)
    assert opts.shorts >= {"r", "f", "o"} and opts.value("o") == "out.txt"
    assert opts.value("target-directory") == "d"
    assert opts.operands == [2, 5]  # src, and -x after `--`
    assert parse_options(["-oout"], spec).value("o") == "out"
    posix = parse_options(["-n", "5", "rm", "-rf"], OptSpec.of("n", permute=False))
    assert posix.end == 2  # a wrapper's options end at the command


# ---- unwrapping ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "argv", "privileged"),
    [
        ("sudo -u root -E rm -rf x", "rm -rf x", True),
        ("ionice -c3 rm -rf build", "rm -rf build", False),
        ("ionice -c 2 -n 7 rm x", "rm x", False),
        ("setsid -f rm x", "rm x", False),
        ("nice -n 10 timeout -s KILL 5 rm x", "rm x", False),
        ("stdbuf -oL -eL rm x", "rm x", False),
        ("chrt -f 99 rm x", "rm x", False),
        ("taskset -c 0,1 rm x", "rm x", False),
        ("env -i A=1 B=2 rm x", "rm x", False),
        ("env -S 'rm -rf x'", "rm -rf x", False),
        ("doas -u root rm x", "rm x", True),
        ("pkexec --user root rm x", "rm x", True),
        ("nohup time -p rm x", "rm x", False),
        ("command rm x", "rm x", False),
        ("busybox rm x", "rm x", False),
        ("strace -f -o t.txt rm x", "rm x", False),
        ("flock /tmp/lock rm x", "rm x", False),
        ("A=1 B=2 rm x", "rm x", False),
        ("/bin/r? -rf x", "rm -rf x", False),
        ("command -v rm", "", False),
        ("chrt -p 10 1234", "", False),
    ],
)
def test_wrappers_unwrap_to_the_command_that_runs(text: str, argv: str, privileged: bool) -> None:
    (cmd,) = parse(text)[0].commands
    got = unwrap(cmd.words)
    assert " ".join(w.text for w in got.argv) == argv
    assert got.privileged is privileged


def test_xargs_and_sudo_stdin_are_reported() -> None:
    assert unwrap([Word(t) for t in ["xargs", "-0", "-n1", "rm", "-f"]]).via == "xargs"
    assert unwrap([Word(t) for t in ["sudo", "-kS", "ls"]]).sudo_stdin
    assert unwrap([Word(t) for t in ["sudo", "--stdi", "ls"]]).sudo_stdin
    assert not unwrap([Word(t) for t in ["sudo", "ls", "-S"]]).sudo_stdin
    assert [w.text for w in unwrap([Word("flock"), Word("/tmp/l"), Word("-c"), Word("rm x")]).code] == [
        "rm x"
    ]


@pytest.mark.parametrize(
    ("text", "mode", "code"),
    [
        ("bash -lO extglob -lc 'rm -rf /'", "c", ["rm -rf /"]),
        ("bash -O extglob -o pipefail -c 'x'", "c", ["x"]),
        ("bash --rcfile rc -c 'x'", "c", ["x"]),
        ("sh -ec 'x' arg0", "c", ["x"]),
        ("fish --command='x'", "c", ["x"]),
        ("fish -C init -c x", "c", ["init", "x"]),
        ("tcsh -fc 'x'", "c", ["x"]),
        ("bash script.sh -c x", "script", []),
        ("bash -s -- --yes", "stdin", []),
        ("bash", "stdin", []),
        ("sh -", "stdin", []),
    ],
)
def test_shells_find_their_command_string(text: str, mode: str, code: list[str]) -> None:
    got = shell_code(parse(text)[0].commands[0].words)
    assert got.mode == mode
    assert [w.text for w in got.code] == code


@pytest.mark.parametrize(
    ("text", "mode", "code", "inplace", "files"),
    [
        ("python3 -c 'print(1)'", "code", ["print(1)"], False, []),
        ("python3 -uc 'print(1)'", "code", ["print(1)"], False, []),
        ("python3 -m http.server", "module", [], False, []),
        ("python3 - < x", "stdin", [], False, []),
        ("python3 app.py --flag", "script", [], False, ["--flag"]),
        ("perl -p -i -e 's/a/b/' f1 f2", "code", ["s/a/b/"], True, ["f1", "f2"]),
        ("perl -i.bak -pe 's/a/b/' f", "code", ["s/a/b/"], True, ["f"]),
        ("perl -MList::Util -e 'print 1'", "code", ["print 1"], False, []),
        ("node --eval='1+1'", "code", ["1+1"], False, []),
        ("node -r dotenv/config -e 'x'", "code", ["x"], False, []),
        ("ruby -pi -e 'gsub(/a/, 1)' f", "code", ["gsub(/a/, 1)"], True, ["f"]),
        ("awk -F: '{print $1}' /etc/passwd", "code", ["{print $1}"], False, ["/etc/passwd"]),
        ("deno eval 'Deno.exit(0)'", "code", ["Deno.exit(0)"], False, []),
    ],
)
def test_interpreters_find_their_code(
    text: str, mode: str, code: list[str], inplace: bool, files: list[str]
) -> None:
    argv = parse(text)[0].commands[0].words
    interp = interpreter_for(argv[0].text)
    assert interp is not None
    got = interpreter_code(interp, argv)
    assert (got.mode, [w.text for w in got.code], got.inplace) == (mode, code, inplace)
    assert got.files == files


def test_powershell_with_and_without_command() -> None:
    def code(text: str) -> tuple[str | None, bool]:
        got = powershell_code(parse(text)[0].commands[0].words)
        return got.code, got.encoded

    assert code("pwsh -NoProfile -Command Remove-Item -Recurse x") == ("Remove-Item -Recurse x", False)
    assert code("pwsh -c 'Get-Date'") == ("Get-Date", False)
    assert code("pwsh -NoProfile Remove-Item x") == ("Remove-Item x", False)
    assert code("pwsh -ExecutionPolicy Bypass -File a.ps1") == (None, False)
    assert code("powershell -enc RwBlAHQALQBEAGEAdABlAA==") == ("Get-Date", True)


# ---- effects ---------------------------------------------------------------------------------------------


def effects(text: str) -> dict[str, object]:
    """Everything the commands of `text` do, merged: what tests below compare against."""
    out: dict[str, object] = {"writes": [], "deletes": [], "copies": [], "git": set(), "runs": []}
    for c in analyze(text).commands:
        fx = c.effects
        out["writes"] += [(w.path, w.kind) for w in fx.writes]  # type: ignore[operator]
        out["deletes"] += [(d.path, d.recursive, d.force) for d in fx.deletes]  # type: ignore[operator]
        out["copies"] += [(cp.sources, cp.dest, cp.dest_is_dir, cp.move) for cp in fx.copies]  # type: ignore[operator]
        out["git"] |= fx.git  # type: ignore[operator]
        out["runs"] += [(r.language, r.text, r.origin, r.via) for r in fx.runs]  # type: ignore[operator]
    return out


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ("echo x > a 2>> b 2>&1", "writes", [("a", "overwrite"), ("b", "append")]),
        ("cmd &> all.log", "writes", [("all.log", "overwrite")]),
        ("tee -a x y", "writes", [("x", "append"), ("y", "append")]),
        ("sed -i -e s/a/b/ f1 f2", "writes", [("f1", "edit"), ("f2", "edit")]),
        ("sed -i s/a/b/ f", "writes", [("f", "edit")]),
        ("sed -n p f", "writes", []),
        ("truncate -s 0 log", "writes", [("log", "truncate")]),
        ("dd if=/dev/zero of=disk.img", "writes", [("disk.img", "overwrite")]),
        ("curl -fsSLo out.bin url", "writes", [("out.bin", "overwrite")]),
        ("wget -qO- url", "writes", []),
        ("sort -o sorted.txt in.txt", "writes", [("sorted.txt", "overwrite")]),
        ("git checkout -- a.py", "writes", [("a.py", "edit")]),
        ("rm -rf a b", "deletes", [("a", True, True), ("b", True, True)]),
        ("rm x -r", "deletes", [("x", True, False)]),
        ("rm --rec --forc x", "deletes", [("x", True, True)]),
        ("rm -- -rf", "deletes", [("-rf", False, False)]),
        ("find build -name '*.o' -delete", "deletes", [("build", True, False)]),
        ("find . -exec rm {} +", "deletes", [(".", False, False)]),
        ("git rm -r old", "deletes", [("old", True, False)]),
        ("git rm --cached x", "deletes", []),
        ("cp a b", "copies", [(("a",), "b", None, False)]),
        ("cp -t dir a b", "copies", [(("a", "b"), "dir", True, False)]),
        ("mv a dir/", "copies", [(("a",), "dir/", True, True)]),
        ("cp -T a b", "copies", [(("a",), "b", False, False)]),
        ("git reset --har", "git", {"reset", "reset_hard"}),
        ("git push -uf origin main", "git", {"force_push"}),
        ("git push origin +main", "git", {"force_push"}),
        ("git clean -nfd", "git", set()),
        ("git stash list", "git", set()),
    ],
)
def test_effects(text: str, field: str, expected: object) -> None:
    assert effects(text)[field] == expected


@pytest.mark.parametrize(
    ("text", "run"),
    [
        ("bash -c 'ls'", ("sh", "ls", "literal", "c")),
        ("curl -s url | sh", ("sh", None, "download", "stdin")),
        ("bash < <(curl -s url)", ("sh", None, "download", "stdin")),
        ("echo 'rm x' | sh", ("sh", "rm x", "literal", "stdin")),
        ("echo cm0geA== | base64 -d | sh", ("sh", "rm x", "decode", "stdin")),
        ("sh <<EOF\nls\nEOF", ("sh", "ls", "heredoc", "stdin")),
        ('eval "$(curl -s url)"', ("sh", "$(curl -s url)", "download", "eval")),
        ("rg --pre sh foo", ("sh", "sh", "literal", "option")),
        ("git -c core.pager='less -R' log", ("sh", "less -R", "literal", "option")),
        ("LESSOPEN='|lesspipe %s' less f", ("sh", "lesspipe FILE", "literal", "env")),
        ("python3 -c 'print(1)'", ("python", "print(1)", "literal", "code")),
        ('psql -c "DROP TABLE t"', ("sql", "-c DROP TABLE t", "literal", "args")),
    ],
)
def test_what_a_command_runs(text: str, run: tuple[str, str | None, str, str]) -> None:
    assert run in effects(text)["runs"]


def test_analysis_follows_everything_that_runs() -> None:
    a = analyze("sudo sh -c 'cd build && rm -rf *'; echo $(rm y) | tee log")
    texts = [(c.text, c.cwd, c.privileged) for c in a.commands]
    assert ("rm -rf *", "build", True) in texts  # inside sh -c, after its cd, still under sudo
    assert ("rm y", "", False) in texts  # the substitution runs too
    assert a.segments[:2] == ["sudo sh -c cd build && rm -rf *", "sh -c cd build && rm -rf *"]


def test_cd_is_scoped_to_its_subshell_and_unknown_after_a_variable() -> None:
    cwds = {c.text: c.cwd for c in analyze("(cd /etc; rm a); rm b; cd $DIR; rm c; cd ~/x && rm d").commands}
    assert cwds == {"cd /etc": "", "rm a": "/etc", "rm b": "", "cd $DIR": "", "rm c": None, "cd ~/x": None,
                    "rm d": "~/x"}  # fmt: skip


def test_variables_and_parameter_defaults() -> None:
    texts = [c.text for c in analyze("a=rm; X=-rf; $a $X x; ${unset:-rm} y; ${HOME:-/tmp}/z").commands]
    assert "rm -rf x" in texts and "rm y" in texts and "${HOME}/z" in texts


def test_inline_code_becomes_commands() -> None:
    a = analyze(
        "python3 -c \"import os, shutil, subprocess; os.remove('/etc/passwd'); shutil.rmtree('build'); "
        "open('.env', 'w'); subprocess.run(['git', 'push', '--force'])\""
    )
    synthesized = {(c.text, tuple(r.target.text for r in c.redirects if r.target)) for c in a.commands}
    assert ("rm -- /etc/passwd", ()) in synthesized
    assert ("rm -r -- build", ()) in synthesized
    assert ("", (".env",)) in synthesized
    assert ("git push --force", ()) in synthesized
    assert [s.language for s in a.scripts] == ["sh", "python", *["sh"] * (len(a.scripts) - 2)]


def test_find_exec_runs_with_the_roots_for_braces() -> None:
    (find, rm) = analyze("find /tmp/x -name '*.o' -exec rm -f {} \\;").commands
    assert rm.via == "find" and rm.roots == ("/tmp/x",)
    assert [(d.path, d.force) for d in rm.effects.deletes] == [("/tmp/x", True)]
    assert find.effects.deletes == []


def test_the_shell_model_is_pure(monkeypatch: pytest.MonkeyPatch) -> None:
    """No file system access: the gate and the planner may call it on anything, from any thread."""

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the shell model touched the file system: {args!r}")

    for name in ("stat", "lstat", "scandir", "listdir", "access"):
        monkeypatch.setattr(os, name, forbidden)
    monkeypatch.setattr(builtins, "open", forbidden)
    for text in (
        "rm -rf ~/x",
        "cp a b/",
        "cd x && tee y",
        "python3 -c \"open('f','w')\"",
        "git -C r reset --hard",
    ):
        assert analyze(text).commands
