"""The app's child processes and their one owner: `supervisor` (start a child in a process group of its
own, registered, killed group and all when the app ends in any way), `groups` (what is alive in a process
group, stopping groups), `reaper` (the small process that kills what is registered when the app dies
without cleaning up, kill -9 included), `gate` (a child other code starts, held back until its group is
registered) and `leftovers` (what was cleaned up that way, told on the next start).

Kept import-light (standard library only): the reaper and the gate run this package's code in a bare
interpreter.
"""
