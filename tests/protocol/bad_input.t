# Everything from the Robustness section: each bad input gets an error response (or,
# for a notification, a logged rejection), never a crash, hang or partial change; the
# server keeps answering afterwards.
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{"textDocument":{"documentSymbol":{"hierarchicalDocumentSymbolSupport":true}}},"initializationOptions":{"compile":{"enabled":false}}}}
<- {"id":1,"result":"$any"}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/a.cu","languageId":"cuda","version":1,"text":"// 注释 😀\n__global__ void k(int *p) { p[0] = 1; }\n"}}}
# --- framing ---
# A header line without a colon, then a misspelt Content-Length: error with id null,
# and the stream resynchronises on the next Content-Length line.
=> "Garbage here\r\nContent-Lngth 5\r\n\r\nhello"
<- {"id":null,"error":{"code":-32700,"message":"$contains:header"}}
-> {"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///w/a.cu"}}}
<- {"id":2,"result":[{"name":"k"}]}
=> "Content-Length: abc\r\n\r\n"
<- {"id":null,"error":{"code":-32700,"message":"$contains:not a decimal number"}}
# 4 TB: refused without allocating, then the stream resynchronises.
=> "Content-Length: 4398046511104\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}"
<- {"id":null,"error":{"code":-32600,"message":"$contains:limit"}}
-> {"jsonrpc":"2.0","id":4,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///w/a.cu"}}}
<- {"id":4,"result":[{"name":"k"}]}
# --- JSON ---
-> {"jsonrpc":"2.0","id":5,"method":
<- {"id":null,"error":{"code":-32700,"message":"$contains:invalid JSON"}}
-> [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
<- {"id":null,"error":{"code":-32700,"message":"$contains:nested deeper"}}
-> [{"jsonrpc":"2.0","id":6,"method":"shutdown"}]
<- {"id":null,"error":{"code":-32600}}
-> "just a string"
<- {"id":null,"error":{"code":-32600}}
# A lone surrogate is not valid JSON text: ParseError, and nothing is opened.
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/s.cu","languageId":"cuda","version":1,"text":"bad \ud800 here"}}}
<- {"id":null,"error":{"code":-32700,"message":"$contains:invalid JSON"}}
-> {"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/s.cu"},"position":{"line":0,"character":0}}}
<- {"id":7,"error":{"code":-32602,"message":"$contains:not open"}}
# --- wrong shapes and types ---
-> {"jsonrpc":"2.0","id":8,"method":42}
<- {"id":8,"error":{"code":-32600}}
-> {"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}
<- {"id":null,"error":{"code":-32600}}
-> {"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":"a string"}
<- {"id":9,"error":{"code":-32600}}
-> {"jsonrpc":"2.0","id":10,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/a.cu"},"position":{"line":"1","character":0}}}
<- {"id":10,"error":{"code":-32602,"message":"$contains:position"}}
-> {"jsonrpc":"2.0","id":11,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/a.cu"},"position":{"line":-1,"character":0}}}
<- {"id":11,"error":{"code":-32602}}
-> {"jsonrpc":"2.0","id":12,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":7}}}
<- {"id":12,"error":{"code":-32602}}
-> {"jsonrpc":"2.0","id":13,"method":"textDocument/documentSymbol"}
<- {"id":13,"error":{"code":-32602}}
-> {"jsonrpc":"2.0","id":14,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///w/a\u0000.cu"}}}
<- {"id":14,"error":{"code":-32602}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/b.cu","version":"one","text":"x"}}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/b.cu","version":1,"text":null}}}
silence 100
-> {"jsonrpc":"2.0","id":15,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///w/b.cu"}}}
<- {"id":15,"error":{"code":-32602,"message":"$contains:not open"}}
# --- unknown methods ---
-> {"jsonrpc":"2.0","id":16,"method":"textDocument/teleport","params":{}}
<- {"id":16,"error":{"code":-32601,"message":"$contains:teleport"}}
-> {"jsonrpc":"2.0","method":"textDocument/teleported","params":{}}
-> {"jsonrpc":"2.0","method":"$/unknownNotification","params":{}}
# A reply to a request we never sent, and a cancel for nothing: ignored.
-> {"jsonrpc":"2.0","id":777,"result":{"applied":true}}
-> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":12345}}
silence 200
# --- positions ---
-> {"jsonrpc":"2.0","id":17,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/a.cu"},"position":{"line":9999,"character":0}}}
<- {"id":17,"error":{"code":-32602,"message":"$contains:outside the document"}}
-> {"jsonrpc":"2.0","id":18,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/a.cu"},"position":{"line":1,"character":400}}}
<- {"id":18,"error":{"code":-32602}}
# "// 注释 😀": the emoji is at units 6-7; 7 is inside the surrogate pair.
-> {"jsonrpc":"2.0","id":19,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/a.cu"},"position":{"line":0,"character":7}}}
<- {"id":19,"error":{"code":-32602,"message":"$contains:inside a character"}}
# --- bad changes: logged, the document stays as it was (no partial application) ---
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.cu","version":2},"contentChanges":[{"range":{"start":{"line":1,"character":20},"end":{"line":1,"character":10}},"text":"x"}]}}
<- {"method":"window/logMessage","params":{"type":2,"message":"$contains:inverted range"}}
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.cu","version":3},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"__global__ void zz() {}\n"},{"range":{"start":{"line":50,"character":0},"end":{"line":50,"character":1}},"text":"y"}]}}
<- {"method":"window/logMessage","params":{"type":2,"message":"$contains:outside the document"}}
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.cu","version":4},"contentChanges":[{"range":{"start":{"line":0,"character":7},"end":{"line":0,"character":8}},"text":"y"}]}}
<- {"method":"window/logMessage","params":{"type":2,"message":"$contains:inside a character"}}
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.cu","version":5},"contentChanges":{"text":"x"}}}
<- {"method":"window/logMessage","params":{"type":2,"message":"$contains:must be an array"}}
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.cu","version":6},"contentChanges":[{"range":{"start":{"line":0}},"text":"x"}]}}
<- {"method":"window/logMessage","params":{"type":2,"message":"$contains:malformed"}}
-> {"jsonrpc":"2.0","id":20,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///w/a.cu"}}}
<- {"id":20,"result":[{"name":"k","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":39}}}]}
# Edits to a document that is not open.
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/nope.cu","version":2},"contentChanges":[{"text":"x"}]}}
-> {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///w/nope.cu"}}}
silence 100
# --- NUL in text is kept, and the rest still works ---
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/n.cu","languageId":"cuda","version":1,"text":"int a\u0000b;\n__global__ void after_nul(int *p) {}\n"}}}
-> {"jsonrpc":"2.0","id":21,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///w/n.cu"}}}
<- {"id":21,"result":[{"name":"after_nul","range":{"start":{"line":1}}}]}
-> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/n.cu","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":5},"end":{"line":0,"character":6}},"text":"\u0000\u0000"}]}}
-> {"jsonrpc":"2.0","id":22,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/n.cu"},"position":{"line":0,"character":9}}}
<- {"id":22,"result":null}
-> {"jsonrpc":"2.0","id":23,"method":"shutdown"}
<- {"id":23,"result":null}
-> {"jsonrpc":"2.0","method":"exit"}
exit 0
