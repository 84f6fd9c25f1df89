"""Line-cached views for text that grows while you watch: the model (blocks, lines, strip cache) apart from
the widget base (`view.LineView`), so the model is testable without a screen."""
