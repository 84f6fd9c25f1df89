"""Scheduled jobs in Hermes' format (`$HERMES_HOME/cron/jobs.json`): schedules, the job file, the tool."""
