# A client without hierarchical symbols gets SymbolInformation with containerName;
# with utf-8 negotiated, columns are bytes (the kernel after Chinese text and an emoji).
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{"general":{"positionEncodings":["utf-8"]}},"initializationOptions":{"compile.enabled":false}}}
<- {"id":1,"result":{"capabilities":{"positionEncoding":"utf-8"}}}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","languageId":"cuda","version":1,"text":$TEXT(kernels.cu)}}}
-> {"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"}}}
<- {"id":2,"result":[{"name":"square","kind":12,"location":{"uri":"file://$ROOT/kernels.cu"},"containerName":"$absent"},{"name":"saxpy","kind":12},{"name":"reduce_sum","kind":12},{"name":"buf","kind":13,"containerName":"reduce_sum"},{"name":"run","kind":12},{"name":"saxpy<<<(n + 255) / 256, 256>>>","kind":24,"containerName":"run"},{"name":"reduce_sum<<<(n + 255) / 256, 256, 0>>>","kind":24,"containerName":"run"},{"name":"tagged","kind":12,"location":{"uri":"file://$ROOT/kernels.cu","range":{"start":{"line":34,"character":17},"end":{"line":34,"character":61}}}}]}
# Hover in utf-8 columns, plaintext (the client named no format).
-> {"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":34,"character":34}}}
<- {"id":4,"result":{"contents":{"kind":"plaintext","value":"__global__ void tagged(int *p)\n\nLaunch configurations (0)\n- none in this file\n"},"range":{"start":{"line":34,"character":33},"end":{"line":34,"character":39}}}}
# 4 is inside the 3-byte sequence of a Chinese character on line 0 ("// " then bytes 3..20).
-> {"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":0,"character":4}}}
<- {"id":5,"error":{"code":-32602}}
-> {"jsonrpc":"2.0","id":3,"method":"shutdown"}
<- {"id":3,"result":null}
-> {"jsonrpc":"2.0","method":"exit"}
exit 0
