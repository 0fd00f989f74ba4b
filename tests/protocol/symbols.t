# documentSymbol on a file with Chinese comments and emoji: kernels, a template kernel
# with __launch_bounds__, a device function, a launcher with its launch sites as
# children; ranges in utf-16 (the client does not offer utf-8).
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://$ROOT","capabilities":{"textDocument":{"documentSymbol":{"hierarchicalDocumentSymbolSupport":true}}},"initializationOptions":{"compile":{"enabled":false}}}}
<- {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","languageId":"cuda","version":1,"text":$TEXT(kernels.cu)}}}
-> {"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"}}}
<- {"id":2,"result":[{"name":"square","kind":12,"detail":"__device__ float square(float v)","range":{"start":{"line":5,"character":0},"end":{"line":5,"character":50}},"selectionRange":{"start":{"line":5,"character":17},"end":{"line":5,"character":23}},"children":"$absent"},{"name":"saxpy","kind":12,"detail":"__global__ void saxpy(int n, float a, const float *__restrict__ x, float *y)","range":{"start":{"line":8,"character":0},"end":{"line":12,"character":1}},"selectionRange":{"start":{"line":8,"character":16},"end":{"line":8,"character":21}}},{"name":"reduce_sum","kind":12,"detail":"$contains:__global__","range":{"start":{"line":14,"character":0},"end":{"line":26,"character":1}},"selectionRange":{"start":{"line":15,"character":41},"end":{"line":15,"character":51}},"children":[{"name":"buf","kind":13,"detail":"__shared__ float[BLOCK]"}]},{"name":"run","kind":12,"detail":"launcher: 2 launches","range":{"start":{"line":28,"character":0},"end":{"line":32,"character":1}},"children":[{"name":"saxpy<<<(n + 255) / 256, 256>>>","kind":24,"range":{"start":{"line":30,"character":4},"end":{"line":30,"character":50}}},{"name":"reduce_sum<<<(n + 255) / 256, 256, 0>>>","kind":24,"range":{"start":{"line":31,"character":4},"end":{"line":31,"character":63}}}]},{"name":"tagged","kind":12,"range":{"start":{"line":34,"character":11},"end":{"line":34,"character":55}},"selectionRange":{"start":{"line":34,"character":27},"end":{"line":34,"character":33}}}]}
-> {"jsonrpc":"2.0","id":3,"method":"shutdown"}
<- {"id":3,"result":null}
-> {"jsonrpc":"2.0","method":"exit"}
exit 0
