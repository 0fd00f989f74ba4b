-- Loaded at startup (Neovim 0.7+). Only teaches Neovim the .hip extension, which 0.7 does
-- not know; the client itself starts when the user calls require('hyperkernel').setup{}.
if vim.g.loaded_hyperkernel then
  return
end
vim.g.loaded_hyperkernel = 1
vim.cmd([[autocmd BufRead,BufNewFile *.hip setfiletype hip]])
