"""What the widgets share that is not a widget: the UI's timing constants, text made safe to show."""
