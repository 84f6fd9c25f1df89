"""The card look every question, dialog and picker shares, and what every question has in common."""
