//! Builds the tree of a template from its tokens, following Go's `text/template/parse`: the same
//! grammar, the same checks at parse time (unknown functions, undefined variables, `break`
//! outside `range`, non-executable pipeline stages) and close to the same messages.

use std::collections::BTreeMap;

use crate::TemplateError;
use crate::funcs;
use crate::lex::{Keyword, Tok, Token};

/// Parenthesised pipelines and control structures nest at most this deep.
const MAX_NESTING: usize = 100;

#[derive(Debug)]
pub(crate) enum Node {
    Text(String),
    Action(Pipe),
    If(Control),
    With(Control),
    Range(Control),
    Template {
        pos: usize,
        name: String,
        pipe: Option<Pipe>,
    },
    Break,
    Continue,
}

#[derive(Debug)]
pub(crate) struct Control {
    pub(crate) pipe: Pipe,
    pub(crate) list: Vec<Node>,
    pub(crate) else_list: Option<Vec<Node>>,
}

#[derive(Debug)]
pub(crate) struct Pipe {
    pub(crate) pos: usize,
    pub(crate) is_assign: bool,
    pub(crate) decl: Vec<String>,
    pub(crate) cmds: Vec<Command>,
}

#[derive(Debug)]
pub(crate) struct Command {
    pub(crate) pos: usize,
    pub(crate) args: Vec<Arg>,
}

#[derive(Debug)]
pub(crate) enum Arg {
    /// `.a.b`
    Field(usize, Vec<String>),
    /// `$x.a.b` (the first element is the variable's name, `$` included)
    Variable(usize, Vec<String>),
    /// `(pipeline).a.b`
    Chain(usize, Box<Arg>, Vec<String>),
    Dot,
    Nil(usize),
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Function(usize, String),
    Pipe(Box<Pipe>),
}

impl Arg {
    /// The argument as Go prints it in messages (`<.a.b>`).
    pub(crate) fn describe(&self) -> String {
        match self {
            Arg::Field(_, f) => f.iter().map(|f| format!(".{f}")).collect(),
            Arg::Variable(_, v) => {
                let mut s = v[0].clone();
                for f in &v[1..] {
                    s.push('.');
                    s.push_str(f);
                }
                s
            }
            Arg::Chain(_, inner, f) => {
                let mut s = inner.describe();
                for f in f {
                    s.push('.');
                    s.push_str(f);
                }
                s
            }
            Arg::Dot => ".".into(),
            Arg::Nil(_) => "nil".into(),
            Arg::Bool(b) => b.to_string(),
            Arg::Int(i) => i.to_string(),
            Arg::Float(f) => f.to_string(),
            Arg::Str(s) => format!("{s:?}"),
            Arg::Function(_, name) => name.clone(),
            Arg::Pipe(p) => format!("({})", p.describe()),
        }
    }
}

impl Pipe {
    pub(crate) fn describe(&self) -> String {
        let mut s = String::new();
        if !self.decl.is_empty() {
            s.push_str(&self.decl.join(", "));
            s.push_str(if self.is_assign { " = " } else { " := " });
        }
        let cmds: Vec<String> = self
            .cmds
            .iter()
            .map(|c| {
                c.args
                    .iter()
                    .map(Arg::describe)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        s.push_str(&cmds.join(" | "));
        s
    }
}

/// The main template and the ones `define` and `block` name.
#[derive(Debug)]
pub(crate) struct Tree {
    pub(crate) root: Vec<Node>,
    pub(crate) defined: BTreeMap<String, Vec<Node>>,
}

pub(crate) fn parse(src: &str, tokens: Vec<Token>) -> Result<Tree, TemplateError> {
    let mut p = Parser {
        src,
        tokens,
        i: 0,
        vars: vec!["$".into()],
        range_depth: 0,
        depth: 0,
        defined: BTreeMap::new(),
    };
    let root = p.top_level()?;
    Ok(Tree {
        root,
        defined: p.defined,
    })
}

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    i: usize,
    vars: Vec<String>,
    range_depth: usize,
    depth: usize,
    defined: BTreeMap<String, Vec<Node>>,
}

enum ListEnd {
    End,
    Else(usize),
}

fn is_empty_tree(nodes: &[Node]) -> bool {
    nodes
        .iter()
        .all(|n| matches!(n, Node::Text(t) if t.trim().is_empty()))
}

fn describe_tok(tok: &Tok) -> String {
    match tok {
        Tok::Text(t) => format!("{t:?}"),
        Tok::LeftDelim => "<left delimiter>".into(),
        Tok::RightDelim => "<right delimiter>".into(),
        Tok::Space => "space".into(),
        Tok::Field(f) => format!("<.{f}>"),
        Tok::Variable(v) => format!("<{v}>"),
        Tok::Dot => "<.>".into(),
        Tok::Ident(i) => format!("<{i}>"),
        Tok::Keyword(k) => format!("<{}>", k.name()),
        Tok::Str(s) => format!("{s:?}"),
        Tok::Number(n) => format!("<{n}>"),
        Tok::Char(_) => "character constant".into(),
        Tok::Bool(b) => format!("<{b}>"),
        Tok::Nil => "<nil>".into(),
        Tok::LParen => "<(>".into(),
        Tok::RParen => "<)>".into(),
        Tok::Pipe => "<|>".into(),
        Tok::Declare => "<:=>".into(),
        Tok::Assign => "<=>".into(),
        Tok::Comma => "<,>".into(),
        Tok::Eof => "EOF".into(),
    }
}

impl Parser<'_> {
    fn err(&self, pos: usize, message: impl Into<String>) -> TemplateError {
        TemplateError::at(self.src, pos, message)
    }

    fn peek(&self) -> &Token {
        &self.tokens[self.i.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.i < self.tokens.len() {
            self.i += 1;
        }
        t
    }

    fn skip_space(&mut self) {
        while matches!(self.peek().tok, Tok::Space) {
            self.i += 1;
        }
    }

    fn peek_non_space(&mut self) -> &Token {
        self.skip_space();
        self.peek()
    }

    fn next_non_space(&mut self) -> Token {
        self.skip_space();
        self.next()
    }

    fn unexpected(&self, t: &Token, context: &str) -> TemplateError {
        self.err(
            t.pos,
            format!("unexpected {} in {context}", describe_tok(&t.tok)),
        )
    }

    fn expect_right_delim(&mut self, context: &str) -> Result<(), TemplateError> {
        let t = self.next_non_space();
        if t.tok == Tok::RightDelim {
            Ok(())
        } else {
            Err(self.unexpected(&t, context))
        }
    }

    fn enter(&mut self, pos: usize) -> Result<(), TemplateError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.err(
                pos,
                format!("template nests deeper than {MAX_NESTING} levels"),
            ));
        }
        Ok(())
    }

    fn top_level(&mut self) -> Result<Vec<Node>, TemplateError> {
        let mut root = Vec::new();
        loop {
            match &self.peek().tok {
                Tok::Eof => return Ok(root),
                Tok::LeftDelim => {
                    let save = self.i;
                    self.next();
                    if matches!(self.peek_non_space().tok, Tok::Keyword(Keyword::Define)) {
                        self.next();
                        self.definition()?;
                        continue;
                    }
                    self.i = save;
                }
                _ => {}
            }
            match self.text_or_action()? {
                Item::Node(n) => root.push(n),
                Item::End(pos) => return Err(self.err(pos, "unexpected {{end}}")),
                Item::Else(pos) => return Err(self.err(pos, "unexpected {{else}}")),
            }
        }
    }

    fn template_name(&mut self, context: &str) -> Result<(usize, String), TemplateError> {
        let t = self.next_non_space();
        match t.tok {
            Tok::Str(s) => Ok((t.pos, s)),
            _ => Err(self.unexpected(&t, context)),
        }
    }

    fn add_definition(
        &mut self,
        pos: usize,
        name: String,
        list: Vec<Node>,
    ) -> Result<(), TemplateError> {
        match self.defined.get(&name) {
            Some(existing) if !is_empty_tree(existing) => {
                if !is_empty_tree(&list) {
                    return Err(self.err(
                        pos,
                        format!("template: multiple definition of template {name:?}"),
                    ));
                }
            }
            _ => {
                self.defined.insert(name, list);
            }
        }
        Ok(())
    }

    /// `{{define "name"}} ... {{end}}`, after the keyword.
    fn definition(&mut self) -> Result<(), TemplateError> {
        let (pos, name) = self.template_name("define clause")?;
        self.expect_right_delim("define clause")?;
        let outer_vars = std::mem::replace(&mut self.vars, vec!["$".into()]);
        let (list, end) = self.item_list()?;
        self.vars = outer_vars;
        if let ListEnd::Else(p) = end {
            return Err(self.err(p, "unexpected {{else}} in define clause"));
        }
        self.add_definition(pos, name, list)
    }

    fn item_list(&mut self) -> Result<(Vec<Node>, ListEnd), TemplateError> {
        let mut list = Vec::new();
        loop {
            if matches!(self.peek().tok, Tok::Eof) {
                return Err(self.err(self.peek().pos, "unexpected EOF"));
            }
            match self.text_or_action()? {
                Item::Node(n) => list.push(n),
                Item::End(_) => return Ok((list, ListEnd::End)),
                Item::Else(pos) => return Ok((list, ListEnd::Else(pos))),
            }
        }
    }

    fn text_or_action(&mut self) -> Result<Item, TemplateError> {
        let t = self.next();
        match t.tok {
            Tok::Text(s) => Ok(Item::Node(Node::Text(s))),
            Tok::LeftDelim => self.action(),
            _ => Err(self.unexpected(&t, "input")),
        }
    }

    fn action(&mut self) -> Result<Item, TemplateError> {
        let t = self.next_non_space();
        let node = match t.tok {
            Tok::Keyword(Keyword::Block) => self.block(t.pos)?,
            Tok::Keyword(Keyword::Break) => self.loop_control(t.pos, "break")?,
            Tok::Keyword(Keyword::Continue) => self.loop_control(t.pos, "continue")?,
            Tok::Keyword(Keyword::Else) => {
                // `{{else if ...}}` and `{{else with ...}}` leave the keyword for the caller.
                if !matches!(
                    self.peek_non_space().tok,
                    Tok::Keyword(Keyword::If | Keyword::With)
                ) {
                    self.expect_right_delim("else")?;
                }
                return Ok(Item::Else(t.pos));
            }
            Tok::Keyword(Keyword::End) => {
                self.expect_right_delim("end")?;
                return Ok(Item::End(t.pos));
            }
            Tok::Keyword(Keyword::If) => Node::If(self.control(t.pos, "if")?),
            Tok::Keyword(Keyword::Range) => Node::Range(self.control(t.pos, "range")?),
            Tok::Keyword(Keyword::With) => Node::With(self.control(t.pos, "with")?),
            Tok::Keyword(Keyword::Template) => self.template(t.pos)?,
            Tok::Keyword(Keyword::Define) => return Err(self.unexpected(&t, "command")),
            _ => {
                self.i -= 1;
                Node::Action(self.pipeline("command", true)?)
            }
        };
        Ok(Item::Node(node))
    }

    fn loop_control(&mut self, pos: usize, name: &str) -> Result<Node, TemplateError> {
        self.expect_right_delim(name)?;
        if self.range_depth == 0 {
            return Err(self.err(pos, format!("{{{{{name}}}}} outside {{{{range}}}}")));
        }
        Ok(if name == "break" {
            Node::Break
        } else {
            Node::Continue
        })
    }

    fn template(&mut self, _pos: usize) -> Result<Node, TemplateError> {
        let (pos, name) = self.template_name("template clause")?;
        let pipe = if matches!(self.peek_non_space().tok, Tok::RightDelim) {
            self.next();
            None
        } else {
            Some(self.pipeline("template clause", true)?)
        };
        Ok(Node::Template { pos, name, pipe })
    }

    /// `{{block "name" pipeline}} ... {{end}}`: defines the template and executes it.
    fn block(&mut self, _pos: usize) -> Result<Node, TemplateError> {
        let (pos, name) = self.template_name("block clause")?;
        let pipe = self.pipeline("block clause", true)?;
        let outer_vars = std::mem::replace(&mut self.vars, vec!["$".into()]);
        let (list, end) = self.item_list()?;
        self.vars = outer_vars;
        if let ListEnd::Else(p) = end {
            return Err(self.err(p, "unexpected {{else}} in block clause"));
        }
        self.add_definition(pos, name.clone(), list)?;
        Ok(Node::Template {
            pos,
            name,
            pipe: Some(pipe),
        })
    }

    fn control(&mut self, pos: usize, context: &str) -> Result<Control, TemplateError> {
        self.enter(pos)?;
        let mark = self.vars.len();
        let pipe = self.pipeline(context, true)?;
        if context == "range" {
            self.range_depth += 1;
        }
        let (list, end) = self.item_list()?;
        if context == "range" {
            self.range_depth -= 1;
        }
        let else_list = match end {
            ListEnd::End => None,
            ListEnd::Else(else_pos) => {
                let chained = matches!(
                    (context, &self.peek_non_space().tok),
                    ("if", Tok::Keyword(Keyword::If)) | ("with", Tok::Keyword(Keyword::With))
                );
                if chained {
                    // `{{else if x}}...{{end}}` is `{{else}}{{if x}}...{{end}}{{end}}`.
                    let t = self.next();
                    let inner = self.control(t.pos, context)?;
                    Some(vec![if context == "if" {
                        Node::If(inner)
                    } else {
                        Node::With(inner)
                    }])
                } else {
                    let (else_list, end) = self.item_list()?;
                    if let ListEnd::Else(p) = end {
                        let _ = else_pos;
                        return Err(self.err(p, "expected end; found {{else}}"));
                    }
                    Some(else_list)
                }
            }
        };
        self.vars.truncate(mark);
        self.depth -= 1;
        Ok(Control {
            pipe,
            list,
            else_list,
        })
    }

    fn declare(&mut self, pos: usize, name: String, assign: bool) -> Result<String, TemplateError> {
        if assign {
            self.use_var(pos, &name)?;
        } else {
            self.vars.push(name.clone());
        }
        Ok(name)
    }

    /// A pipeline, ending with `}}` (`in_action`) or `)`.
    fn pipeline(&mut self, context: &str, in_action: bool) -> Result<Pipe, TemplateError> {
        let start = self.peek_non_space().pos;
        let mut pipe = Pipe {
            pos: start,
            is_assign: false,
            decl: Vec::new(),
            cmds: Vec::new(),
        };
        // Declarations: `$x :=`, `$x =`, `$i, $v :=` (range only).
        if let Tok::Variable(name) = self.peek_non_space().tok.clone() {
            let save = self.i;
            let v = self.next();
            self.skip_space();
            match self.peek().tok {
                Tok::Declare | Tok::Assign => {
                    let assign = self.next().tok == Tok::Assign;
                    pipe.is_assign = assign;
                    pipe.decl.push(self.declare(v.pos, name, assign)?);
                }
                Tok::Comma if context == "range" => {
                    self.next();
                    let second = self.next_non_space();
                    let Tok::Variable(name2) = second.tok.clone() else {
                        return Err(self.err(second.pos, "range can only initialize variables"));
                    };
                    let op = self.next_non_space();
                    let assign = match op.tok {
                        Tok::Declare => false,
                        Tok::Assign => true,
                        _ => return Err(self.unexpected(&op, context)),
                    };
                    pipe.is_assign = assign;
                    pipe.decl.push(self.declare(v.pos, name, assign)?);
                    pipe.decl.push(self.declare(second.pos, name2, assign)?);
                }
                Tok::Comma => {
                    return Err(self.err(v.pos, format!("too many declarations in {context}")));
                }
                _ => self.i = save,
            }
        }
        loop {
            let t = self.peek_non_space().clone();
            match t.tok {
                Tok::RightDelim if in_action => {
                    self.next();
                    break;
                }
                Tok::RParen if !in_action => {
                    self.next();
                    break;
                }
                Tok::Bool(_)
                | Tok::Char(_)
                | Tok::Dot
                | Tok::Field(_)
                | Tok::Ident(_)
                | Tok::Number(_)
                | Tok::Nil
                | Tok::Str(_)
                | Tok::Variable(_)
                | Tok::LParen => pipe.cmds.push(self.command(in_action)?),
                _ => return Err(self.unexpected(&t, context)),
            }
        }
        if pipe.cmds.is_empty() {
            return Err(self.err(start, format!("missing value for {context}")));
        }
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args[0],
                Arg::Bool(_) | Arg::Dot | Arg::Nil(_) | Arg::Int(_) | Arg::Float(_) | Arg::Str(_)
            ) {
                return Err(self.err(
                    c.pos,
                    format!("non executable command in pipeline stage {}", i + 1),
                ));
            }
        }
        Ok(pipe)
    }

    fn command(&mut self, in_action: bool) -> Result<Command, TemplateError> {
        let pos = self.peek_non_space().pos;
        let mut cmd = Command {
            pos,
            args: Vec::new(),
        };
        loop {
            self.skip_space();
            if let Some(arg) = self.operand()? {
                cmd.args.push(arg);
            }
            let t = self.next();
            match t.tok {
                Tok::Space => continue,
                Tok::RightDelim | Tok::RParen => {
                    if (t.tok == Tok::RightDelim) != in_action {
                        return Err(self.unexpected(&t, "operand"));
                    }
                    self.i -= 1;
                }
                Tok::Pipe => {}
                _ => return Err(self.unexpected(&t, "operand")),
            }
            break;
        }
        if cmd.args.is_empty() {
            return Err(self.err(pos, "empty command"));
        }
        Ok(cmd)
    }

    fn operand(&mut self) -> Result<Option<Arg>, TemplateError> {
        let pos = self.peek().pos;
        let Some(term) = self.term()? else {
            return Ok(None);
        };
        let mut fields = Vec::new();
        while let Tok::Field(f) = &self.peek().tok {
            fields.push(f.clone());
            self.next();
        }
        if fields.is_empty() {
            return Ok(Some(term));
        }
        Ok(Some(match term {
            Arg::Field(p, mut f) => {
                f.extend(fields);
                Arg::Field(p, f)
            }
            Arg::Variable(p, mut v) => {
                v.extend(fields);
                Arg::Variable(p, v)
            }
            Arg::Bool(_) | Arg::Str(_) | Arg::Int(_) | Arg::Float(_) | Arg::Nil(_) | Arg::Dot => {
                return Err(self.err(
                    pos,
                    format!("unexpected . after term {:?}", term.describe()),
                ));
            }
            other => Arg::Chain(pos, Box::new(other), fields),
        }))
    }

    fn use_var(&self, pos: usize, name: &str) -> Result<(), TemplateError> {
        if self.vars.iter().any(|v| v == name) {
            Ok(())
        } else {
            Err(self.err(pos, format!("undefined variable {name:?}")))
        }
    }

    fn term(&mut self) -> Result<Option<Arg>, TemplateError> {
        let t = self.next_non_space();
        Ok(Some(match t.tok {
            Tok::Ident(name) => {
                if !funcs::is_defined(&name) {
                    return Err(self.err(t.pos, format!("function {name:?} not defined")));
                }
                Arg::Function(t.pos, name)
            }
            Tok::Dot => Arg::Dot,
            Tok::Nil => Arg::Nil(t.pos),
            Tok::Variable(name) => {
                self.use_var(t.pos, &name)?;
                Arg::Variable(t.pos, vec![name])
            }
            Tok::Field(f) => Arg::Field(t.pos, vec![f]),
            Tok::Bool(b) => Arg::Bool(b),
            Tok::Char(c) => Arg::Int(c),
            Tok::Number(n) => self.number(t.pos, &n)?,
            Tok::Str(s) => Arg::Str(s),
            Tok::LParen => {
                self.enter(t.pos)?;
                let pipe = self.pipeline("parenthesized pipeline", false)?;
                self.depth -= 1;
                Arg::Pipe(Box::new(pipe))
            }
            _ => {
                self.i -= 1;
                return Ok(None);
            }
        }))
    }

    fn number(&self, pos: usize, text: &str) -> Result<Arg, TemplateError> {
        let bad = || self.err(pos, format!("bad number syntax: {text:?}"));
        let clean = text.replace('_', "");
        let (neg, body) = match clean.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, clean.strip_prefix('+').unwrap_or(&clean)),
        };
        let lower = body.to_ascii_lowercase();
        let radix = if lower.starts_with("0x") {
            Some((16, &body[2..]))
        } else if lower.starts_with("0o") {
            Some((8, &body[2..]))
        } else if lower.starts_with("0b") {
            Some((2, &body[2..]))
        } else if body.len() > 1
            && body.starts_with('0')
            && body.bytes().all(|b| b.is_ascii_digit())
        {
            Some((8, &body[1..]))
        } else {
            None
        };
        if let Some((radix, digits)) = radix {
            let v = i64::from_str_radix(digits, radix).map_err(|_| bad())?;
            return Ok(Arg::Int(if neg { -v } else { v }));
        }
        if body.contains(['.', 'e', 'E']) {
            let v: f64 = body.parse().map_err(|_| bad())?;
            return Ok(Arg::Float(if neg { -v } else { v }));
        }
        let v: i64 = clean.parse().map_err(|_| bad())?;
        Ok(Arg::Int(v))
    }
}

enum Item {
    Node(Node),
    End(usize),
    Else(usize),
}
