/** The query editor, loaded on demand (codemirror.ts is its own chunk). */
import { useEffect, useRef } from "preact/hooks";
import type { Editor, EditorOptions } from "../codemirror.ts";

export type EditorProps = Omit<EditorOptions, "parent"> & { onReady?(editor: Editor): void };

export function QueryEditor(props: EditorProps) {
  const box = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  latest.current = props;
  useEffect(() => {
    let editor: Editor | undefined;
    let gone = false;
    void import("../codemirror.ts").then(({ createEditor }) => {
      if (gone || !box.current) return;
      editor = createEditor({
        ...latest.current,
        parent: box.current,
        onChange: (text) => latest.current.onChange(text),
        onRun: () => latest.current.onRun(),
      });
      latest.current.onReady?.(editor);
    });
    return () => {
      gone = true;
      editor?.destroy();
    };
  }, [props.language, JSON.stringify(Object.keys(props.tables)), props.terms.length]);
  return <div class="editor" ref={box} />;
}
