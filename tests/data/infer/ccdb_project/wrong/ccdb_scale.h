// must not be used: other.cu's include folder
