//! The one PGN reader of the tools (book maker, tuner, data converter): a streaming tokenizer
//! over lines, so that files of any size (and gzip, through `crate::input::open`) are read one
//! game at a time.
//!
//! What it takes from the text: the tag pairs, the main line's moves in SAN (read by the rules
//! core, `Position::parse_san`) from the standard start or the `FEN` tag's position, the comment
//! after each move (`{…}` may span lines; `;` runs to the end of the line), and the result.
//! Variations `( … )`, nested or not, with everything inside them, are skipped; so are NAGs
//! (`$n`), move numbers (`12.`, `12...`), `%` escape lines and comments before the first move.
//!
//! A game that does not replay (an illegal or ambiguous move, a bad FEN, a broken tag) is an
//! error for that game only: the reader yields it as an `Err` and goes on with the next game. An
//! I/O error ends the reading.

use brudno::chess::{Move, Outcome, Position};
use std::fmt;
use std::io::BufRead;

/// One game of a PGN file.
#[derive(Clone, Debug)]
pub struct PgnGame {
    /// The tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The start position: the `FEN` tag's, or the standard one.
    pub start: Position,
    /// The main line.
    pub moves: Vec<Move>,
    /// The comment after each move (several are joined by a space; line breaks are spaces).
    pub comments: Vec<Option<String>>,
    /// The `Result` tag's result, or the movetext's when there is no tag; `None` for `*`.
    pub outcome: Option<Outcome>,
}

impl PgnGame {
    /// The value of a tag, if the game has it (names are case-sensitive, as in PGN; of a tag
    /// given twice, the later value).
    pub fn tag(&self, name: &str) -> Option<&str> {
        tag(&self.tags, name)
    }

    /// Each move of the main line with the position it is played from.
    pub fn positions(&self) -> impl Iterator<Item = (Position, Move)> + '_ {
        let mut pos = self.start;
        self.moves.iter().map(move |&m| {
            let before = pos;
            pos.play(m);
            (before, m)
        })
    }
}

fn tag<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

#[derive(Debug)]
pub enum PgnError {
    /// Reading the input failed; no more games follow.
    Io(std::io::Error),
    /// The game starting at `line` (1-based) cannot be read; reading goes on after it.
    Game { line: usize, message: String },
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgnError::Io(e) => write!(f, "reading PGN: {e}"),
            PgnError::Game { line, message } => write!(f, "game at line {line}: {message}"),
        }
    }
}

impl std::error::Error for PgnError {}

/// Where the tokenizer is, across lines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lex {
    Text,
    Comment,
    /// Inside `depth` levels of parentheses (and maybe a comment within them).
    Variation {
        depth: u32,
        comment: bool,
    },
}

/// The game being read.
#[derive(Default)]
struct Builder {
    line: usize,
    begun: bool,
    /// Movetext has started: a tag now begins the next game.
    movetext: bool,
    tags: Vec<(String, String)>,
    start: Option<Position>,
    pos: Option<Position>,
    moves: Vec<Move>,
    comments: Vec<Option<String>>,
    comment: String,
    result: Option<Outcome>,
    error: Option<String>,
}

impl Builder {
    fn fail(&mut self, message: String) {
        if self.error.is_none() {
            self.error = Some(message);
        }
    }

    /// The position moves are played in, set up from the tags at the first move.
    fn position(&mut self) -> Option<&mut Position> {
        if self.pos.is_none() && self.error.is_none() {
            let start = match tag(&self.tags, "FEN") {
                Some(fen) => match Position::from_fen(fen) {
                    Ok(p) => p,
                    Err(e) => {
                        self.fail(format!("bad FEN tag '{fen}': {e}"));
                        return None;
                    }
                },
                None => Position::startpos(),
            };
            self.start = Some(start);
            self.pos = Some(start);
        }
        self.pos.as_mut()
    }

    fn san(&mut self, token: &str) {
        self.movetext = true;
        let Some(pos) = self.position() else { return };
        match pos.parse_san(token) {
            Some(m) => {
                pos.play(m);
                self.moves.push(m);
                self.comments.push(None);
            }
            None => {
                let fen = pos.to_fen();
                let ply = self.moves.len() + 1;
                self.fail(format!("move {ply} '{token}' is not legal in {fen}"));
            }
        }
    }

    fn end_comment(&mut self) {
        let text = self.comment.trim();
        if let Some(slot) = self.comments.last_mut() {
            if !text.is_empty() {
                match slot {
                    Some(c) => {
                        c.push(' ');
                        c.push_str(text);
                    }
                    None => *slot = Some(text.to_string()),
                }
            }
        }
        self.comment.clear();
    }

    fn finish(mut self) -> Result<PgnGame, PgnError> {
        self.position();
        if let Some(message) = self.error {
            return Err(PgnError::Game {
                line: self.line,
                message,
            });
        }
        let outcome = match tag(&self.tags, "Result") {
            Some(r) => Outcome::from_pgn(r),
            None => self.result,
        };
        Ok(PgnGame {
            tags: self.tags,
            start: self.start.expect("set up by position()"),
            moves: self.moves,
            comments: self.comments,
            outcome,
        })
    }
}

/// Games from PGN text, one at a time.
pub struct PgnReader<R> {
    input: R,
    bytes: Vec<u8>,
    line: String,
    at: usize,
    line_no: usize,
    lex: Lex,
    game: Builder,
    done: bool,
}

impl<R: BufRead> PgnReader<R> {
    pub fn new(input: R) -> PgnReader<R> {
        PgnReader {
            input,
            bytes: Vec::new(),
            line: String::new(),
            at: 0,
            line_no: 0,
            lex: Lex::Text,
            game: Builder::default(),
            done: false,
        }
    }

    /// The next line into `self.line` (invalid UTF-8 replaced); false at the end.
    fn read_line(&mut self) -> std::io::Result<bool> {
        self.bytes.clear();
        if self.input.read_until(b'\n', &mut self.bytes)? == 0 {
            return Ok(false);
        }
        while matches!(self.bytes.last(), Some(b'\n' | b'\r')) {
            self.bytes.pop();
        }
        self.line = String::from_utf8_lossy(&self.bytes).into_owned();
        if self.line_no == 0 {
            if let Some(rest) = self.line.strip_prefix('\u{feff}') {
                self.line = rest.to_string();
            }
        }
        self.line_no += 1;
        self.at = 0;
        if self.lex == Lex::Text && self.line.starts_with('%') {
            self.at = self.line.len(); // an escape line
        }
        Ok(true)
    }

    fn begin(&mut self) {
        if !self.game.begun {
            self.game.begun = true;
            self.game.line = self.line_no;
        }
    }

    /// The game read so far, if there is one: comments alone (before a file's first tags, or
    /// between games) are not a game.
    fn take_game(&mut self) -> Option<Result<PgnGame, PgnError>> {
        let game = std::mem::take(&mut self.game);
        let empty = game.tags.is_empty()
            && game.moves.is_empty()
            && game.result.is_none()
            && game.error.is_none();
        (!empty).then(|| game.finish())
    }

    /// Reads on until a game is complete (`Some`), or the input ends.
    fn scan(&mut self) -> Option<Result<PgnGame, PgnError>> {
        loop {
            if self.at >= self.line.len() {
                match self.read_line() {
                    Ok(true) => continue,
                    Ok(false) => {
                        self.done = true;
                        if !self.game.begun {
                            return None;
                        }
                        match self.lex {
                            Lex::Text => {}
                            Lex::Comment => self.game.fail("a comment is not closed".into()),
                            Lex::Variation { .. } => {
                                self.game.fail("a variation is not closed".into())
                            }
                        }
                        return self.take_game();
                    }
                    Err(e) => {
                        self.done = true;
                        return Some(Err(PgnError::Io(e)));
                    }
                }
            }
            let rest = &self.line[self.at..];
            match self.lex {
                Lex::Comment => match rest.find('}') {
                    Some(i) => {
                        self.game.comment.push_str(&rest[..i]);
                        self.at += i + 1;
                        self.lex = Lex::Text;
                        self.game.end_comment();
                    }
                    None => {
                        self.game.comment.push_str(rest);
                        self.game.comment.push(' ');
                        self.at = self.line.len();
                    }
                },
                Lex::Variation { depth, comment } => self.skip_variation(depth, comment),
                Lex::Text => {
                    if let Some(game) = self.text_token() {
                        return Some(game);
                    }
                }
            }
        }
    }

    /// Skips through a variation on the current line.
    fn skip_variation(&mut self, mut depth: u32, mut comment: bool) {
        let bytes = self.line.as_bytes();
        while self.at < bytes.len() {
            let c = bytes[self.at];
            self.at += 1;
            match c {
                b'}' if comment => comment = false,
                _ if comment => {}
                b'{' => comment = true,
                b';' => self.at = bytes.len(),
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.lex = Lex::Text;
                        return;
                    }
                }
                _ => {}
            }
        }
        self.lex = Lex::Variation { depth, comment };
    }

    /// Reads one token of movetext (or a tag); returns the game it completes, if any.
    fn text_token(&mut self) -> Option<Result<PgnGame, PgnError>> {
        let rest = &self.line[self.at..];
        self.at += rest.len() - rest.trim_start().len();
        let c = self.line[self.at..].chars().next()?;
        if c == '[' && self.game.movetext {
            // The next game's tags: they are read with a fresh game.
            return self.take_game();
        }
        self.begin();
        match c {
            '[' => self.tag(),
            '{' => {
                self.game.movetext = true;
                self.at += 1;
                self.lex = Lex::Comment;
            }
            ';' => {
                self.game.movetext = true;
                self.game.comment.push_str(&self.line[self.at + 1..]);
                self.game.end_comment();
                self.at = self.line.len();
            }
            '(' => {
                self.game.movetext = true;
                self.at += 1;
                self.lex = Lex::Variation {
                    depth: 1,
                    comment: false,
                };
            }
            ')' => self.at += 1, // a stray close: nothing to skip
            _ => {
                // A NAG is `$` and its digits; other symbols end at a space or a delimiter.
                let rest = &self.line[self.at..];
                let len = match c {
                    '$' => 1 + rest[1..].bytes().take_while(u8::is_ascii_digit).count(),
                    _ => rest
                        .find(|c: char| c.is_whitespace() || "{}()[];$".contains(c))
                        .unwrap_or(rest.len())
                        .max(1),
                };
                let token = rest[..len].to_string();
                self.at += len;
                return self.symbol(&token);
            }
        }
        None
    }

    /// A movetext symbol: a result, a move number, a NAG or a move.
    fn symbol(&mut self, token: &str) -> Option<Result<PgnGame, PgnError>> {
        self.game.movetext = true;
        if matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*") {
            self.game.result = Outcome::from_pgn(token);
            return self.take_game();
        }
        if let Some(nag) = token.strip_prefix('$') {
            if nag.is_empty() || !nag.bytes().all(|b| b.is_ascii_digit()) {
                self.game.fail(format!("bad NAG '{token}'"));
            }
            return None;
        }
        // Move numbers: `12.`, `12...`, also glued to the move (`12.e4`); `0-0` is castling.
        let digits = token.bytes().take_while(u8::is_ascii_digit).count();
        let mut san = token;
        if digits > 0 && token[digits..].starts_with('.') {
            san = token[digits..].trim_start_matches('.');
        } else if digits == token.len() {
            san = "";
        }
        let san = san.trim_start_matches('.');
        // Annotations written apart from the move (`e4 !?`) say nothing about it.
        if san.is_empty() || san.bytes().all(|b| b == b'!' || b == b'?') {
            return None;
        }
        self.game.san(san);
        None
    }

    /// A tag pair `[Name "value"]` at `self.at`.
    fn tag(&mut self) {
        let from = self.at + 1;
        match parse_tag(&self.line[from..]) {
            Some((name, value, used)) => {
                self.game.tags.push((name, value));
                self.at = from + used;
            }
            None => {
                let line = self.line.trim().to_string();
                self.game.fail(format!("bad tag {line}"));
                self.at = self.line.len();
            }
        }
    }
}

/// `Name "value"]` at the start of `text`: the name, the value (`\"` and `\\` unescaped; a
/// quote not followed by `]` is taken as part of the value) and the bytes taken.
fn parse_tag(text: &str) -> Option<(String, String, usize)> {
    let body = text.trim_start();
    let name_len = body.find(|c: char| c.is_whitespace() || c == '"')?;
    if name_len == 0 {
        return None;
    }
    let rest = body[name_len..].trim_start().strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some((_, '"' | '\\'))) => {
                value.push(chars.next()?.1);
            }
            '"' => match rest[i + 1..].trim_start().strip_prefix(']') {
                Some(after) => {
                    return Some((
                        body[..name_len].to_string(),
                        value,
                        text.len() - after.len(),
                    ))
                }
                None => value.push('"'),
            },
            c => value.push(c),
        }
    }
    None
}

impl<R: BufRead> Iterator for PgnReader<R> {
    type Item = Result<PgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        self.scan()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Result<PgnGame, PgnError>> {
        PgnReader::new(text.as_bytes()).collect()
    }

    fn uci(game: &PgnGame) -> Vec<String> {
        game.positions()
            .map(|(pos, m)| pos.move_to_uci(m, false))
            .collect()
    }

    #[test]
    fn tags_moves_comments_and_results() {
        let text = "\u{feff}[Event \"A \\\"quoted\\\" name\"]\n[Result \"1-0\"]\n\n\
            1. e4 {+0.35/14 0.263s} e5 {a comment\nover two lines} 2.Nf3 $1 Nc6 ; to the end\n\
            % an escape line, ignored\n\
            3. Bb5 (3. Bc4 {with (parens)} Bc5 (3... Nf6 4. Ng5) 4. c3) 3... a6!? 4. Ba4 1-0\n\
            \n[Event \"two\"] [Result \"0-1\"]\n1. f3 e5 2. g4 Qh4# 0-1\n";
        let games: Vec<PgnGame> = read(text).into_iter().map(Result::unwrap).collect();
        assert_eq!(games.len(), 2);
        let g = &games[0];
        assert_eq!(g.tag("Event"), Some("A \"quoted\" name"));
        assert_eq!(g.outcome, Some(Outcome::WhiteWins));
        assert_eq!(
            uci(g),
            ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4"]
        );
        assert_eq!(g.comments[0].as_deref(), Some("+0.35/14 0.263s"));
        assert_eq!(g.comments[1].as_deref(), Some("a comment over two lines"));
        assert_eq!(g.comments[2], None);
        assert_eq!(g.comments[3].as_deref(), Some("to the end"));
        assert_eq!(
            g.comments[4], None,
            "the variation's comment is not the move's"
        );
        assert_eq!(games[1].tag("Event"), Some("two"));
        assert_eq!(games[1].outcome, Some(Outcome::BlackWins));
        assert_eq!(games[1].moves.len(), 4);
    }

    #[test]
    fn a_bad_game_is_skipped_and_reading_goes_on() {
        let text = "[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 Nc6 1-0\n\n\
            [FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 40\"]\n[SetUp \"1\"]\n[Result \"*\"]\n\n\
            40. e4 Kd7 *\n\n\
            [Result \"1/2-1/2\"]\n1. d4 d5\n[Result \"0-1\"]\n1. c4 {never closed\n";
        let games = read(text);
        assert_eq!(games.len(), 4);
        match &games[0] {
            Err(PgnError::Game { line, message }) => {
                assert_eq!(*line, 1);
                assert!(message.contains("move 3 'Ke3'"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let g = games[1].as_ref().unwrap();
        assert_eq!(g.start.fullmove_number(), 40);
        assert_eq!(uci(g), ["e2e4", "e8d7"]);
        assert_eq!(g.outcome, None);
        // No result token: the next tag ends the game.
        let g = games[2].as_ref().unwrap();
        assert_eq!((g.moves.len(), g.outcome), (2, Some(Outcome::Draw)));
        assert!(matches!(&games[3], Err(PgnError::Game { line: 13, .. })));
    }

    #[test]
    fn the_result_token_counts_without_a_tag_and_bad_tags_are_errors() {
        let games = read("1. e4 e5 1/2-1/2\n[Result \"1-0\"\n1. d4 1-0\n");
        assert_eq!(games[0].as_ref().unwrap().outcome, Some(Outcome::Draw));
        assert!(matches!(&games[1], Err(PgnError::Game { line: 2, .. })));
        assert_eq!(games.len(), 2);
        let games = read("{ made by hand }\n\n[Result \"1-0\"]\n1. e4 1-0\n{ the end }\n");
        assert_eq!(games.len(), 1, "comments alone are no game");
        assert!(read("").is_empty());
        assert!(read("\n\n  \n").is_empty());
    }
}
