# Lifecycle: requests before initialize, initialize/initialized, capability negotiation,
# a second initialize, shutdown, requests after shutdown, exit with code 0.
-> {"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.cu"},"position":{"line":0,"character":0}}}
<- {"id":1,"error":{"code":-32002,"message":"$contains:not initialized"}}
-> {"jsonrpc":"2.0","id":"s1","method":"shutdown"}
<- {"id":"s1","error":{"code":-32002}}
# Notifications before initialize are dropped without a response.
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.cu","languageId":"cuda","version":1,"text":"int x;"}}}
silence 200
# The client offers utf-8: it is chosen.
-> {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{"general":{"positionEncodings":["utf-16","utf-8"]}},"trace":"off"}}
<- {"id":2,"result":{"capabilities":{"positionEncoding":"utf-8","textDocumentSync":{"openClose":true,"change":2},"documentSymbolProvider":true,"hoverProvider":true},"serverInfo":{"name":"hkls","version":"$any"}}}
-> {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"processId":null,"capabilities":{}}}
<- {"id":3,"error":{"code":-32600,"message":"$contains:already"}}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
# The document sent before initialize was not kept.
-> {"jsonrpc":"2.0","id":4,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///x.cu"}}}
<- {"id":4,"error":{"code":-32602,"message":"$contains:not open"}}
-> {"jsonrpc":"2.0","id":5,"method":"shutdown"}
<- {"id":5,"result":null}
-> {"jsonrpc":"2.0","id":6,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///x.cu"}}}
<- {"id":6,"error":{"code":-32600,"message":"$contains:shutting down"}}
-> {"jsonrpc":"2.0","method":"exit"}
exit 0
