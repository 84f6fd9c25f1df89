"""Hermes' browser toolset on Playwright for Python driving the system's Chromium."""
