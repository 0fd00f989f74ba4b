# Flags from the workspace file .hyperkernel.json (target sm_80, -D; the client says the
# workspace is trusted, as VS Code does, so compile.flags applies: trust.py has the
# untrusted case) and from
# compile_commands.json (-D, -I with a relative directory); the client's settings
# override the file; unknown keys and bad types are reported; $/setTrace.
require-tool nvcc
timeout 60000
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://$ROOT/ws_config","capabilities":{"textDocument":{"publishDiagnostics":{"versionSupport":true}}},"initializationOptions":{"isTrusted":true,"compile":{"nvcc":"/usr/local/cuda/bin/nvcc","debounceMs":"fast"},"bogus":1}}}
<- {"id":1,"result":"$any"}
<- {"method":"window/logMessage","params":{"type":2,"message":"$contains:unknown setting \"bogus\""}}
<- {"method":"window/logMessage","params":{"type":2,"message":"$contains:compile.debounceMs must be an integer"}}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://$ROOT/ws_config/need_config.cu","languageId":"cuda","version":1,"text":$TEXT(ws_config/need_config.cu)}}}
<- {"method":"textDocument/publishDiagnostics","params":{"version":1,"diagnostics":[{"severity":4,"range":{"start":{"line":4,"character":16}},"message":"$contains:at 128 threads/block"}]}}
-> {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/ws_config/need_config.cu"},"position":{"line":4,"character":20}}}
<- {"id":2,"result":{"contents":{"value":"$contains:cfg_kernel on sm_80"}}}
# The client's settings override the file: without the -D the #error fires.
-> {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"hyperkernel":{"compile":{"flags":[],"nvcc":"/usr/local/cuda/bin/nvcc"}}}}}
-> {"jsonrpc":"2.0","method":"textDocument/didSave","params":{"textDocument":{"uri":"file://$ROOT/ws_config/need_config.cu"}}}
<- {"method":"textDocument/publishDiagnostics","params":{"version":1,"diagnostics":[{"severity":1,"range":{"start":{"line":2}},"message":"$contains:were not applied"}]}}
# Tracing: each handled message is reported.
-> {"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"verbose"}}
-> {"jsonrpc":"2.0","id":3,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file://$ROOT/ws_config/need_config.cu"}}}
<- {"id":3,"result":[{"name":"cfg_kernel"},{"name":"launch"},{"name":"cfg_kernel<<<1, 128>>>","containerName":"launch"}]}
<- {"method":"$/logTrace","params":{"message":"$contains:textDocument/documentSymbol","verbose":"answered"}}
-> {"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"}}
-> {"jsonrpc":"2.0","id":4,"method":"shutdown"}
<- {"id":4,"result":null}
never {"method":"$/logTrace","params":{"message":"$contains:shutdown"}}
-> {"jsonrpc":"2.0","method":"exit"}
exit 0
