/**
 * The slice of the DOM the extractor uses, typed here because the project compiles without the `dom`
 * lib. linkedom's document satisfies it structurally (so would jsdom's).
 */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly parentNode: DomNode | null;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly childNodes: ArrayLike<DomNode> & Iterable<DomNode>;
  textContent: string | null;
  appendChild(node: DomNode): DomNode;
  insertBefore(node: DomNode, child: DomNode | null): DomNode;
  remove(): void;
}

export interface DomText extends DomNode {
  readonly data: string;
}

export interface DomAttribute {
  readonly name: string;
  readonly value: string;
}

export interface DomElement extends DomNode {
  readonly tagName: string;
  /** Lower-case for HTML elements. */
  readonly localName: string;
  readonly attributes: Iterable<DomAttribute>;
  readonly children: ArrayLike<DomElement> & Iterable<DomElement>;
  readonly firstElementChild: DomElement | null;
  readonly nextElementSibling: DomElement | null;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  getElementsByTagName(name: string): ArrayLike<DomElement> & Iterable<DomElement>;
}

export interface DomDocument extends DomNode {
  readonly documentElement: DomElement;
  readonly body: DomElement;
  readonly title: string;
  createElement(name: string): DomElement;
  getElementsByTagName(name: string): ArrayLike<DomElement> & Iterable<DomElement>;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
