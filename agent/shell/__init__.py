"""One shell model: a tolerant lexer, the wrappers and shells unwrapped to simple commands, and each
command's effects (files written and deleted, code and programs run, git changes). The approval gate and
the checkpoint planner both read commands through it, so whatever one recognises the other sees.

Pure functions: nothing here touches the file system or runs anything.
"""

from agent.shell.effects import effects_of
from agent.shell.git import git_subcommand
from agent.shell.lexer import MAX_DEPTH, Pipeline, Redirect, SimpleCommand, Word, parse, strip_comments
from agent.shell.model import Analysis, Command, Copy, Effects, PathEffect, Run, Script, Source
from agent.shell.paths import HERMES_HOME, HOME, expand_markers, join_cwd, normalize
from agent.shell.runs import DOWNLOADERS, SQL_CLIENTS, is_decoder
from agent.shell.walk import analyze, expand
from agent.shell.wrappers import SHELLS, interpreter_for, shell_code, unwrap

__all__ = [
    "DOWNLOADERS",
    "HERMES_HOME",
    "HOME",
    "MAX_DEPTH",
    "SHELLS",
    "SQL_CLIENTS",
    "Analysis",
    "Command",
    "Copy",
    "Effects",
    "PathEffect",
    "Pipeline",
    "Redirect",
    "Run",
    "Script",
    "SimpleCommand",
    "Source",
    "Word",
    "analyze",
    "effects_of",
    "expand",
    "expand_markers",
    "git_subcommand",
    "interpreter_for",
    "is_decoder",
    "join_cwd",
    "normalize",
    "parse",
    "shell_code",
    "strip_comments",
    "unwrap",
]
