s| at /.*/tapsets/linux/| at TAPSETS/|
