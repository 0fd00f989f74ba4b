# Incremental edits: several changes in one didChange applied in order, an insertion
# after an emoji (utf-16 columns), a multi-line deletion, a full replacement; symbols
# and hover follow each version (the analysis is reparsed incrementally).
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{"textDocument":{"documentSymbol":{"hierarchicalDocumentSymbolSupport":true}}},"initializationOptions":{"compile":{"enabled":false}}}}
<- {"id":1,"result":"$any"}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","languageId":"cuda","version":1,"text":$TEXT(kernels.cu)}}}
# Rename saxpy at its definition and at its launch; the second range refers to the text
# after the first change (same line lengths change only on line 8).
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","version":2},"contentChanges":[{"range":{"start":{"line":8,"character":16},"end":{"line":8,"character":21}},"text":"axpy_f"},{"range":{"start":{"line":30,"character":4},"end":{"line":30,"character":9}},"text":"axpy_f"}]}}
-> {"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"}}}
<- {"id":2,"result":[{"name":"square"},{"name":"axpy_f","selectionRange":{"start":{"line":8,"character":16},"end":{"line":8,"character":22}}},{"name":"reduce_sum"},{"name":"run","children":[{"name":"axpy_f<<<(n + 255) / 256, 256>>>","range":{"start":{"line":30,"character":4},"end":{"line":30,"character":51}}},{"name":"$any"}]},{"name":"tagged"}]}
# Insert a kernel at the end of line 0, after the rocket emoji (utf-16 length 30).
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","version":3},"contentChanges":[{"range":{"start":{"line":0,"character":30},"end":{"line":0,"character":30}},"text":"\n__global__ void first(float *p) { p[0] = 0; } // 第一"}]}}
-> {"jsonrpc":"2.0","id":3,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"}}}
<- {"id":3,"result":[{"name":"first","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":45}}},{"name":"square","range":{"start":{"line":6,"character":0}}},{"name":"axpy_f"},{"name":"reduce_sum"},{"name":"run"},{"name":"tagged","range":{"start":{"line":35,"character":11}}}]}
# Delete from the end of run (line 33, after "}") to the end of the document: tagged goes.
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","version":4},"contentChanges":[{"range":{"start":{"line":33,"character":1},"end":{"line":36,"character":0}},"text":"\n"}]}}
-> {"jsonrpc":"2.0","id":4,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"}}}
<- {"id":4,"result":[{"name":"first"},{"name":"square"},{"name":"axpy_f"},{"name":"reduce_sum"},{"name":"run","range":{"end":{"line":33,"character":1}}}]}
-> {"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":31,"character":6}}}
<- {"id":5,"result":{"contents":{"value":"$contains:void axpy_f(int n"}}}
# Typing inside a kernel body, one character at a time.
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","version":5},"contentChanges":[{"range":{"start":{"line":11,"character":48},"end":{"line":11,"character":48}},"text":"i"}]}}
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","version":6},"contentChanges":[{"range":{"start":{"line":11,"character":49},"end":{"line":11,"character":49}},"text":"f"}]}}
-> {"jsonrpc":"2.0","id":6,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"}}}
<- {"id":6,"result":[{"name":"first"},{"name":"square"},{"name":"axpy_f"},{"name":"reduce_sum"},{"name":"run"}]}
# Line 11 was 50 units long; 52 is its end only if both characters went in.
-> {"jsonrpc":"2.0","id":61,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":11,"character":52}}}
<- {"id":61,"result":{"contents":{"value":"$contains:axpy_f"}}}
-> {"jsonrpc":"2.0","id":62,"method":"textDocument/hover","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"},"position":{"line":11,"character":53}}}
<- {"id":62,"error":{"code":-32602}}
# Full replacement.
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","version":7},"contentChanges":[{"text":"__global__ void only(int *p) {}\n"}]}}
-> {"jsonrpc":"2.0","id":7,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"}}}
<- {"id":7,"result":[{"name":"only","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":31}}}]}
-> {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"}}}
<- {"method":"textDocument/publishDiagnostics","params":{"uri":"file://$ROOT/kernels.cu","diagnostics":[]}}
-> {"jsonrpc":"2.0","id":8,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu"}}}
<- {"id":8,"error":{"code":-32602}}
-> {"jsonrpc":"2.0","id":9,"method":"shutdown"}
<- {"id":9,"result":null}
-> {"jsonrpc":"2.0","method":"exit"}
exit 0
