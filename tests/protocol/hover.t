# Hover on a kernel name, inside a kernel body, on a launch site, on a device function,
# on a launcher, after Chinese text and an emoji (utf-16 columns), inside a surrogate
# pair (an error), and on nothing (null).
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://$ROOT","capabilities":{"textDocument":{"hover":{"contentFormat":["markdown","plaintext"]}}},"initializationOptions":{"compile":{"enabled":false}}}}
<- {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16","hoverProvider":true}}}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","languageId":"cuda","version":1,"text":$TEXT(kernels.cu)}}}
-> {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":8,"character":18}}}
<- {"id":2,"result":{"contents":{"kind":"markdown","value":"```cuda\n__global__ void saxpy(int n, float a, const float *__restrict__ x, float *y)\n```\n\n**Launch configurations** (1)\n- line 31 in `run`: grid `(n + 255) / 256`, block `256`\n"},"range":{"start":{"line":8,"character":16},"end":{"line":8,"character":21}}}}
# Anywhere in the body: the same kernel, no range.
-> {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":11,"character":20}}}
<- {"id":3,"result":{"contents":{"kind":"markdown","value":"$contains:void saxpy("},"range":"$absent"}}
# A launch site of a template kernel with a stream.
-> {"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":31,"character":8}}}
<- {"id":4,"result":{"contents":{"kind":"markdown","value":"**Launch of reduce_sum**\n- line 32 in `run`: grid `(n + 255) / 256`, block `256`, shared memory `0` B, stream `st`\n\n```cuda\ntemplate <int BLOCK>\n__global__ void __launch_bounds__(BLOCK) reduce_sum(const float *in, float *out, int n)\n```\n\n__launch_bounds__(BLOCK)\n\n**Launch configurations** (1)\n- line 32 in `run`: grid `(n + 255) / 256`, block `256`, shared memory `0` B, stream `st`\n"},"range":{"start":{"line":31,"character":4},"end":{"line":31,"character":63}}}}
-> {"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":5,"character":20}}}
<- {"id":5,"result":{"contents":{"value":"```cuda\n__device__ float square(float v)\n```\n"}}}
-> {"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":28,"character":6}}}
<- {"id":6,"result":{"contents":{"value":"$contains:**Launches** (2)\n- `saxpy` at line 31: grid `(n + 255) / 256`, block `256`\n- `reduce_sum` at line 32"}}}
# utf-16: the name of `tagged` starts at 27 (bytes: 33) after Chinese text and an emoji.
-> {"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":34,"character":28}}}
<- {"id":7,"result":{"contents":{"value":"$contains:**Launch configurations** (0)\n- none in this file"},"range":{"start":{"line":34,"character":27},"end":{"line":34,"character":33}}}}
# Line 0 ends with a rocket emoji at utf-16 units 28-29: 29 is inside the pair.
-> {"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":0,"character":29}}}
<- {"id":8,"error":{"code":-32602,"message":"$contains:inside a character"}}
-> {"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":0,"character":30}}}
<- {"id":9,"result":null}
-> {"jsonrpc":"2.0","id":10,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":2,"character":0}}}
<- {"id":10,"result":null}
-> {"jsonrpc":"2.0","id":11,"method":"shutdown"}
<- {"id":11,"result":null}
-> {"jsonrpc":"2.0","method":"exit"}
exit 0
