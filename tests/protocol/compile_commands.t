# compile_commands.json in the workspace root: its -D and -I reach nvcc (the entry's
# directory is relative, resolved against the database's folder).
require-tool nvcc
timeout 60000
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://$ROOT/ws_ccdb","capabilities":{},"initializationOptions":{"compile":{"nvcc":"/usr/local/cuda/bin/nvcc","debounceMs":0}}}}
<- {"id":1,"result":"$any"}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://$ROOT/ws_ccdb/need_ccdb.cu","languageId":"cuda","version":1,"text":$TEXT(ws_ccdb/need_ccdb.cu)}}}
<- {"method":"textDocument/publishDiagnostics","params":{"diagnostics":[{"severity":4,"source":"hkls","range":{"start":{"line":5,"character":16}}}]}}
-> {"jsonrpc":"2.0","id":2,"method":"shutdown"}
<- {"id":2,"result":null}
-> {"jsonrpc":"2.0","method":"exit"}
exit 0
