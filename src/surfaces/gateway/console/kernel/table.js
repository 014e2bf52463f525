import { el } from './dom.js';

/** A table row: a string cell is text, a Node cell (a button, a link) goes in as it is. */
export function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) {
    if (cell instanceof Node) {
      const td = document.createElement('td');
      td.append(cell);
      tr.append(td);
    } else tr.append(el('td', cell));
  }
  return tr;
}
