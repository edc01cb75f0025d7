# Run by e2e/uprobe_python in the guest: calls for python3.11's
# function__entry mark.
def inner(x):
    return x + 1


def outer():
    return inner(1)


outer()
