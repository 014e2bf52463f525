// A small client-rendered app in the style of a React bundle: a createElement function, components as functions
// of props and state, a render loop, and data fetched from the app's own API after load. No text is in the HTML.
const h = (type, props, ...children) => ({ type, props: props ?? {}, children: children.flat() });

function mount(node) {
  if (typeof node === 'string' || typeof node === 'number') return document.createTextNode(String(node));
  const element = document.createElement(node.type);
  for (const [name, value] of Object.entries(node.props)) {
    if (name.startsWith('on')) element.addEventListener(name.slice(2).toLowerCase(), value);
    else element.setAttribute(name === 'className' ? 'class' : name, value);
  }
  for (const child of node.children) element.append(mount(child));
  return element;
}

let state = { status: 'loading', articles: [] };
const root = document.getElementById('root');

function setState(patch) {
  state = { ...state, ...patch };
  root.replaceChildren(mount(App(state)));
}

function Article({ title, author, paragraphs }) {
  return h('article', { className: 'note' }, h('h2', null, title), h('p', { className: 'by' }, `By ${author}`), ...paragraphs.map((text) => h('p', null, text)));
}

function App({ status, articles }) {
  if (status === 'loading') return h('p', { className: 'spinner' }, 'Loading…');
  return h(
    'main',
    null,
    h('h1', null, 'Field Notes from the Danube Delta'),
    ...articles.map((article) => Article(article)),
  );
}

setState({});
fetch('/api/articles')
  .then((response) => response.json())
  .then((articles) => setState({ status: 'ready', articles }));
