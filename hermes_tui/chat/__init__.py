"""The chat: its screen and layout, the controller of a turn's lifecycle and the view it answers through,
the path of the agent's events to the transcript (bridge, pipeline, turn view), the session service,
attachments, the `!` shell, and the questions the model asks.

Nothing is imported here: the layout (`hermes_tui.chat.layout`) is imported before the first frame and
must stay light.
"""
