// Found only through the -I of compile_commands.json.
#define CCDB_SCALE 3.0f
