"""The transcript: one Line-API view (`view`) over entry models (`entries/`), laid out by `model`."""
