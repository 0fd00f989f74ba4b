# shutdown, then the pipe closes without exit: code 0.
-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}
<- {"id":1,"result":"$any"}
-> {"jsonrpc":"2.0","id":2,"method":"shutdown"}
<- {"id":2,"result":null}
close
exit 0
