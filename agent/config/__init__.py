"""Settings and where they come from: Hermes' `config.yaml` + `.env`, our `tui/config.yaml` (`settings`),
the files people write (`yaml_files`: read any bytes, save one key), `$HERMES_HOME` (`home`), the image and
web settings models, and the provider's model list (`model_catalog`)."""
