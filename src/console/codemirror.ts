/**
 * The query editors (CodeMirror 6), loaded only by the SPARQL and SQL consoles so the first page
 * stays small: SQL with the published tables and their columns completed, SPARQL (the legacy mode)
 * with the predeclared prefixes, classes and predicates completed. Ctrl/Cmd-Enter runs the query.
 */
import { autocompletion, type CompletionContext, type CompletionResult, completionKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { StreamLanguage, bracketMatching, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { sparql } from "@codemirror/legacy-modes/mode/sparql";
import { SQLite, sql } from "@codemirror/lang-sql";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers } from "@codemirror/view";

export interface EditorOptions {
  parent: HTMLElement;
  language: "sql" | "sparql";
  doc: string;
  /** Table name -> column names (SQL). */
  tables: Record<string, string[]>;
  /** Prefix -> namespace, and the ontology's terms (SPARQL). */
  prefixes: Record<string, string>;
  terms: string[];
  label: string;
  onChange(text: string): void;
  onRun(): void;
}

export interface Editor {
  setText(text: string): void;
  /** Puts the cursor at a 1-based line and column (an error's place) and focuses the editor. */
  goTo(line: number, column: number): void;
  destroy(): void;
}

export function createEditor(options: EditorOptions): Editor {
  const language =
    options.language === "sql"
      ? sql({ dialect: SQLite, schema: options.tables, upperCaseKeywords: true })
      : [StreamLanguage.define(sparql), autocompletion({ override: [sparqlCompletions(options.prefixes, options.terms)] })];
  const view = new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        lineNumbers(),
        history(),
        bracketMatching(),
        syntaxHighlighting(defaultHighlightStyle),
        options.language === "sql" ? autocompletion() : [],
        language,
        keymap.of([{ key: "Mod-Enter", run: () => (options.onRun(), true) }, ...completionKeymap, ...defaultKeymap, ...historyKeymap]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange(update.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ "aria-label": options.label }),
        EditorView.lineWrapping,
      ],
    }),
  });
  return {
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    goTo(line, column) {
      const doc = view.state.doc;
      const at = doc.line(Math.min(Math.max(1, line), doc.lines));
      view.dispatch({ selection: { anchor: Math.min(at.from + Math.max(0, column - 1), at.to) }, scrollIntoView: true });
      view.focus();
    },
    destroy() {
      view.destroy();
    },
  };
}

/** Prefixes (`ckg:`) and prefixed terms (`ckg:Chain`, `schema:name`) as the word being typed. */
function sparqlCompletions(prefixes: Record<string, string>, terms: string[]) {
  const options = [
    ...Object.keys(prefixes).map((p) => ({ label: `${p}:`, type: "namespace" })),
    ...terms.map((t) => ({ label: t, type: "property" })),
    ...["SELECT", "WHERE", "FILTER", "OPTIONAL", "GROUP BY", "ORDER BY", "LIMIT", "DISTINCT", "COUNT", "GRAPH", "PREFIX", "ASK"].map((k) => ({ label: k, type: "keyword" })),
  ];
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/[\w:]+/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    return { from: word.from, options, validFor: /^[\w:]*$/ };
  };
}
