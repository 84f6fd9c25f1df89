"""Images in the conversation: stored by content (`store`), sent as each provider's content parts, shrunk to
its limits (`parts`), routed to a model that can see them (`routing`), configured by `settings`, and found in
pasted text (`paths`). Importing the package loads no Pillow: it is imported when an image is handled."""

from agent.images.parts import LIMITS, SHRUNK, ImageLimit, anthropic_image_blocks, openai_messages
from agent.images.store import ImageError, ImageRef, refs_of, save_image

__all__ = [
    "LIMITS",
    "SHRUNK",
    "ImageError",
    "ImageLimit",
    "ImageRef",
    "anthropic_image_blocks",
    "openai_messages",
    "refs_of",
    "save_image",
]
