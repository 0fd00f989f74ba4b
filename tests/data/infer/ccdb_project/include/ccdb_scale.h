// A project header found only through the build's -I (compile_commands.json).
#pragma once
#define CCDB_FACTOR 3.0f
