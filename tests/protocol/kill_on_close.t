# The client closes the pipe while nvcc is compiling: the server exits promptly with
# code 1 and the compiler's whole process group is killed (no nvcc, cudafe++ or cicc
# left running on the fixture).
require-tool nvcc
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://$ROOT","capabilities":{},"initializationOptions":{"compile":{"debounceMs":0,"nvcc":"/usr/local/cuda/bin/nvcc"}}}}
<- {"id":1,"result":"$any"}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://$ROOT/kill_probe_h1.cu","languageId":"cuda","version":1,"text":$TEXT(kill_probe_h1.cu)}}}
sleep 400
close
exit 1
no-process kill_probe_h1
