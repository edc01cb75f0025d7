s|process\("/[^"]*/utypes_prog"\)|process("OUT/utypes_prog")|
