"""Pictures and documents: sniffing, clamping, PDFs, the describer and sight."""
