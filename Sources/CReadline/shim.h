#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

/* Readline keeps its settings in global variables, which Swift 6 will not touch directly; these set and
   read them for the REPL's line editor (Sources/VeinCLI/Repl/LineEditor.swift). */

static inline void vein_rl_configure(const char *name, const char *word_breaks, rl_completion_func_t *complete) {
    rl_readline_name = name;
    /* Ctrl-C and window changes are handled by the REPL between keys, not inside readline. */
    rl_catch_signals = 0;
    rl_catch_sigwinch = 0;
    rl_completer_word_break_characters = (char *)word_breaks;
    rl_attempted_completion_function = complete;
}

/* The line being edited, for completion. */
static inline const char *vein_rl_line_buffer(void) { return rl_line_buffer; }

/* Inside a completion: no filename completion after ours; `append` follows a single match. */
static inline void vein_rl_completion_settings(int append) {
    rl_attempted_completion_over = 1;
    rl_completion_append_character = append;
}

/* Text on readline's output stream, flushed (an echoed ^C, the newline after Ctrl-D). */
static inline void vein_rl_print(const char *text) {
    FILE *out = rl_outstream ? rl_outstream : stdout;
    fputs(text, out);
    fflush(out);
}

/* Readline (8.1 and later) ends the terminal's bracketed-paste mode with a newline after an end of input,
   and keeps `rl_eof_found` set in the callback interface: cleared, the next line ends with one newline. */
static inline void vein_rl_clear_eof(void) { rl_eof_found = 0; }
