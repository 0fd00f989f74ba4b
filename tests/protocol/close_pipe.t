# The client closes the pipe with a document open and a compile pending: the server
# exits promptly with code 1 (no shutdown), killing nothing it should not.
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://$ROOT","capabilities":{}}}
<- {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
-> {"jsonrpc":"2.0","method":"initialized","params":{}}
-> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://$ROOT/kernels.cu","languageId":"cuda","version":1,"text":$TEXT(kernels.cu)}}}
# Half a message, then the pipe closes.
=> "Content-Length: 100\r\n\r\n{\"jsonrpc\":"
close
exit 1
