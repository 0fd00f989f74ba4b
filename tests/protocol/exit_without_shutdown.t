# exit without shutdown ends the process with code 1 (LSP spec).
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}
<- {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
-> {"jsonrpc":"2.0","method":"exit"}
exit 1
