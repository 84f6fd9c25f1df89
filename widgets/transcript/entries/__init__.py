"""What the transcript shows, as models drawn by its view (never widgets)."""
