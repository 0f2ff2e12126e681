// vendor/preact-htm.mjs is node_modules/htm/preact/standalone.module.js (preact, its hooks and htm in one
// module), whose declarations import the `preact` package, which is not installed: the exports lib.js takes,
// declared here. A vnode is opaque to the page.
export type VNode = any;
export type StateUpdater<S> = (value: S | ((previous: S) => S)) => void;
export type Ref<T> = { current: T };
export interface Context<T> { Provider: any; Consumer: any; _default?: T }

export function h(type: any, props: object | null, ...children: any[]): VNode;
export function html(strings: TemplateStringsArray, ...values: any[]): VNode;
export function render(vnode: VNode, parent: Element | DocumentFragment): void;
export function createContext<T>(defaultValue: T): Context<T>;
export function useContext<T>(context: Context<T>): T;
export function useState<S>(initial: S | (() => S)): [S, StateUpdater<S>];
export function useState<S = undefined>(): [S | undefined, StateUpdater<S | undefined>];
export function useReducer<S, A>(reducer: (state: S, action: A) => S, initial: S): [S, (action: A) => void];
export function useReducer<S, A, I>(reducer: (state: S, action: A) => S, arg: I, init: (arg: I) => S): [S, (action: A) => void];
export function useEffect(effect: () => void | (() => void), inputs?: readonly unknown[]): void;
export function useLayoutEffect(effect: () => void | (() => void), inputs?: readonly unknown[]): void;
export function useRef<T>(initial: T): Ref<T>;
export function useRef<T = undefined>(): Ref<T | undefined>;
export function useMemo<T>(factory: () => T, inputs: readonly unknown[] | undefined): T;
export function useCallback<T extends (...args: any[]) => any>(callback: T, inputs: readonly unknown[]): T;
