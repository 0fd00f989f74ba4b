// beside scale_kernel.cu: its compile_commands.json entry must not win over the file's own
