# the script's calls only (python's own modules return too), its
# directory (the run's work directory) dropped
/ \/.*\/uprobe_python\.py:/!d
s| /.*/| |
