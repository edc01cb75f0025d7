s|^[^ ]*/tapsets/linux/+|TAPSETS/linux/|
