s|process\("/[^"]*/uprobe_prog"\)|process("OUT/uprobe_prog")|
