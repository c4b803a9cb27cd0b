"""The same model in IEEE floats (float64, float32, bfloat16, float16) and the forensics of its errors."""
