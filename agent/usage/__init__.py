"""What model calls cost: per call (`pricing`) and summed over days and models (`report`, for `/usage`)."""
