"""The pattern keys the gate can report, with the reason shown to the user and the model.

A key is stable: session approvals remember keys, and the approval store and the UI show them. HARD keys
are refused even in yolo mode (wiping `/` or home, formatting or overwriting a disk, fork bombs, killing
every process, shutting down, guessing the sudo password through stdin): there is no undo for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.shell.options import word_set

REASONS: dict[str, str] = {
    # hard-blocked: refused even in yolo mode
    "delete_root": "deletes the root filesystem",
    "delete_system_dir": "deletes a system directory",
    "delete_home": "deletes the home directory",
    "mkfs": "formats a filesystem (mkfs)",
    "dd_device": "writes raw data onto a block device (dd)",
    "device_write": "writes directly to a block device",
    "fork_bomb": "is a fork bomb",
    "kill_all_processes": "kills every process (kill -1)",
    "shutdown": "shuts down or reboots the machine",
    "sudo_stdin": "feeds the sudo password through stdin (sudo -S)",
    # need approval
    "recursive_delete": "deletes files recursively",
    "force_delete": "force-deletes files",
    "find_delete": "deletes the files find matches (find -delete)",
    "find_exec_rm": "runs rm on the files find matches (find -exec rm)",
    "xargs_rm": "deletes the files listed on its input (xargs rm)",
    "shred": "destroys file contents (shred)",
    "world_writable": "makes files world-writable",
    "chown_root": "recursively gives files to root (chown -R root)",
    "sql_drop": "drops a database or table (SQL DROP)",
    "sql_truncate": "empties a table (SQL TRUNCATE)",
    "sql_delete_all": "deletes every row of a table (DELETE without WHERE)",
    "kill_force": "force-kills processes (SIGKILL)",
    "kill_by_name": "kills processes by name (killall/pkill)",
    "remote_exec": "runs code downloaded from the network in a shell",
    "decoded_exec": "runs decoded or obfuscated data in a shell",
    "heredoc_exec": "feeds a script to a shell through a heredoc",
    "option_exec": "runs a shell or a deleting program on its input through an option (rg --pre, ...)",
    "git_reset_hard": "discards uncommitted changes (git reset --hard)",
    "git_force_push": "force-pushes over remote history",
    "git_clean": "deletes untracked files (git clean -f)",
    "git_branch_delete": "force-deletes a git branch (git branch -D)",
    "env_file_write": "writes or deletes a .env file (secrets)",
    "ssh_write": "writes SSH keys or SSH configuration",
    "shell_rc_write": "modifies a shell startup file",
    "credentials_write": "writes a credentials file",
    "hermes_config_write": "writes Hermes configuration",
    "system_config_write": "writes system configuration under /etc",
    "system_path_write": "writes or deletes files in a system directory (/usr, /bin, /boot, /var, ...)",
    "sudo": "runs a command with root privileges (sudo)",
    "service_stop": "stops, restarts or disables a system service",
    "dd": "copies raw data with dd",
    "chmod_exec": "makes a file executable and runs it at once",
    "write_outside_cwd": "writes outside the working directory",
    "unparsed": "could not be analysed safely",
    # sandbox escapes (agent/approval/sandbox_bounds.py): the match names the paths or programs
    "sandbox_write": "writes outside the sandbox",
    "sandbox_network": "uses the network, which the sandbox does not have",
    # ask mode (agent.approval.modes): what would run in default mode asks
    "ask_edit": "ask mode: every file edit asks",
    "ask_command": "ask mode: a command that is not read-only asks",
    "ask_action": "ask mode: every action that is not a read asks",
}

HARD_KEYS: frozenset[str] = word_set("""
    delete_root delete_system_dir delete_home mkfs dd_device device_write fork_bomb kill_all_processes
    shutdown sudo_stdin
    """)

# Keys meaning "this deletes or overwrites files": the checkpoint planner must cover each of them.
DESTRUCTIVE_KEYS: frozenset[str] = word_set("""
    delete_root delete_system_dir delete_home recursive_delete force_delete find_delete find_exec_rm xargs_rm
    shred env_file_write ssh_write shell_rc_write credentials_write hermes_config_write system_config_write
    system_path_write git_reset_hard git_clean
    """)


@dataclass(frozen=True)
class Match:
    key: str
    reason: str
    hard: bool = False
