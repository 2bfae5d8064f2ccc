//! Runs a parsed template over data, following Go's `text/template` execution.

use serde_json::Value;

use crate::parse::{Arg, Command, Node, Pipe, Tree};
use crate::value::{Val, format_time, write_go};
use crate::{TemplateError, funcs};

/// A template's output is capped: templates may come from console users.
pub const MAX_OUTPUT_BYTES: usize = 1 << 20;
/// `template` and `block` calls nest at most this deep.
pub const MAX_TEMPLATE_DEPTH: usize = 64;
/// Nodes walked and functions called in one execution.
pub const MAX_STEPS: u64 = 2_000_000;

/// Nested control structures, parentheses and `template` calls recurse; the stack grows on the
/// heap when less than this is left, so the limits above bound memory, not a thread's stack.
const RED_ZONE: usize = 64 * 1024;
const STACK_SEGMENT: usize = 1024 * 1024;

enum Flow {
    Break,
    Continue,
    Err(TemplateError),
}

impl From<TemplateError> for Flow {
    fn from(e: TemplateError) -> Flow {
        Flow::Err(e)
    }
}

/// Runs the template with `dot` as its data (and `$`).
pub(crate) fn execute(src: &str, tree: &Tree, dot: &Val) -> Result<String, TemplateError> {
    let mut state = State {
        src,
        tree,
        root: dot,
        vars: Vec::new(),
        out: String::new(),
        depth: 0,
        steps: 0,
        name: None,
    };
    match state.walk(dot, &tree.root) {
        Ok(()) => Ok(state.out),
        Err(Flow::Err(e)) => Err(e),
        // The parser accepts break and continue only inside range.
        Err(Flow::Break | Flow::Continue) => Ok(state.out),
    }
}

struct State<'t> {
    src: &'t str,
    tree: &'t Tree,
    /// `$` outside `template` calls, kept out of `vars` so the data is not copied.
    root: &'t Val,
    vars: Vec<(String, Val)>,
    out: String,
    depth: usize,
    steps: u64,
    /// The `define`d template being executed, for messages.
    name: Option<&'t str>,
}

/// A place in the data while a field chain is followed.
enum Cursor<'a> {
    Missing,
    Json(&'a Value),
    Other(&'a Val),
}

impl<'t> State<'t> {
    fn err(&self, pos: usize, at: &str, message: impl std::fmt::Display) -> TemplateError {
        let context = match self.name {
            Some(name) => format!("executing {name:?} at <{at}>: {message}"),
            None => format!("executing at <{at}>: {message}"),
        };
        TemplateError::at(self.src, pos, context)
    }

    fn step(&mut self, pos: usize, at: &str) -> Result<(), TemplateError> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(self.err(
                pos,
                at,
                format!("template exceeded the limit of {MAX_STEPS} evaluation steps"),
            ));
        }
        Ok(())
    }

    fn write(&mut self, s: &str, pos: usize) -> Result<(), TemplateError> {
        if self.out.len() + s.len() > MAX_OUTPUT_BYTES {
            return Err(TemplateError::at(
                self.src,
                pos,
                format!("template output exceeds the limit of {MAX_OUTPUT_BYTES} bytes"),
            ));
        }
        self.out.push_str(s);
        Ok(())
    }

    fn walk(&mut self, dot: &Val, nodes: &'t [Node]) -> Result<(), Flow> {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.walk_list(dot, nodes))
    }

    fn walk_list(&mut self, dot: &Val, nodes: &'t [Node]) -> Result<(), Flow> {
        for node in nodes {
            match node {
                Node::Text(text) => {
                    self.step(0, "text")?;
                    self.write(text, 0)?;
                }
                Node::Action(pipe) => {
                    self.step(pipe.pos, "action")?;
                    let v = self.pipeline(dot, pipe)?;
                    if pipe.decl.is_empty() {
                        self.print(&v, pipe.pos)?;
                    }
                }
                Node::If(c) | Node::With(c) => {
                    self.step(c.pipe.pos, "if")?;
                    let mark = self.vars.len();
                    let v = self.pipeline(dot, &c.pipe)?;
                    let result = if v.truthy() {
                        let inner_dot = if matches!(node, Node::With(_)) {
                            &v
                        } else {
                            dot
                        };
                        self.walk(inner_dot, &c.list)
                    } else if let Some(else_list) = &c.else_list {
                        self.walk(dot, else_list)
                    } else {
                        Ok(())
                    };
                    self.vars.truncate(mark);
                    result?;
                }
                Node::Range(c) => {
                    self.step(c.pipe.pos, "range")?;
                    let mark = self.vars.len();
                    let result = self.range(dot, c, mark);
                    self.vars.truncate(mark);
                    result?;
                }
                Node::Template { pos, name, pipe } => {
                    self.step(*pos, "template")?;
                    self.call_template(dot, *pos, name, pipe.as_ref())?;
                }
                Node::Break => return Err(Flow::Break),
                Node::Continue => return Err(Flow::Continue),
            }
        }
        Ok(())
    }

    fn range(&mut self, dot: &Val, c: &'t crate::parse::Control, mark: usize) -> Result<(), Flow> {
        let v = self.pipeline(dot, &c.pipe)?;
        let items: Vec<(Val, Val)> = match &v {
            Val::Missing | Val::Json(Value::Null) => Vec::new(),
            Val::Json(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, e)| (Val::int(i as i64), Val::Json(e.clone())))
                .collect(),
            Val::Json(Value::Object(o)) => {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                keys.into_iter()
                    .map(|k| (Val::str(k.clone()), Val::Json(o[k].clone())))
                    .collect()
            }
            Val::Json(Value::Number(n)) if n.as_i64().is_some() => {
                if c.pipe.decl.len() > 1 {
                    let at = c.pipe.describe();
                    return Err(self
                        .err(
                            c.pipe.pos,
                            &at,
                            format!("can't use {} to iterate over more than one variable", n),
                        )
                        .into());
                }
                let count = n.as_i64().unwrap_or(0).max(0);
                let max = MAX_STEPS as i64;
                if count > max {
                    let at = c.pipe.describe();
                    return Err(self
                        .err(
                            c.pipe.pos,
                            &at,
                            format!("template exceeded the limit of {MAX_STEPS} evaluation steps"),
                        )
                        .into());
                }
                (0..count).map(|i| (Val::int(i), Val::int(i))).collect()
            }
            other => {
                let at = c.pipe.describe();
                return Err(self
                    .err(
                        c.pipe.pos,
                        &at,
                        format!(
                            "range can't iterate over {}",
                            crate::value::to_go_string(other)
                        ),
                    )
                    .into());
            }
        };
        if items.is_empty() {
            if let Some(else_list) = &c.else_list {
                return self.walk(dot, else_list);
            }
            return Ok(());
        }
        for (index, elem) in items {
            self.step(c.pipe.pos, "range")?;
            match (c.pipe.decl.as_slice(), c.pipe.is_assign) {
                ([], _) => {}
                ([one], true) => self.set_var(one, elem.clone()),
                ([i, e], true) => {
                    self.set_var(i, index);
                    self.set_var(e, elem.clone());
                }
                ([_], false) => self.vars[mark].1 = elem.clone(),
                (_, false) => {
                    self.vars[mark].1 = index;
                    self.vars[mark + 1].1 = elem.clone();
                }
                _ => {}
            }
            let inner = self.vars.len();
            let result = self.walk(&elem, &c.list);
            self.vars.truncate(inner);
            match result {
                Ok(()) | Err(Flow::Continue) => {}
                Err(Flow::Break) => break,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn call_template(
        &mut self,
        dot: &Val,
        pos: usize,
        name: &'t str,
        pipe: Option<&'t Pipe>,
    ) -> Result<(), Flow> {
        let Some(list) = self.tree.defined.get(name) else {
            return Err(self
                .err(
                    pos,
                    &format!("template {name:?}"),
                    format!("template {name:?} not defined"),
                )
                .into());
        };
        if self.depth >= MAX_TEMPLATE_DEPTH {
            return Err(self
                .err(
                    pos,
                    &format!("template {name:?}"),
                    format!("exceeded maximum template depth ({MAX_TEMPLATE_DEPTH})"),
                )
                .into());
        }
        let new_dot = match pipe {
            Some(p) => self.pipeline(dot, p)?,
            None => Val::Missing,
        };
        // No dynamic scoping: a template sees only `$`, its data.
        let saved = std::mem::replace(&mut self.vars, vec![("$".into(), new_dot.clone())]);
        let saved_name = self.name.replace(name);
        self.depth += 1;
        let result = self.walk(&new_dot, list);
        self.depth -= 1;
        self.name = saved_name;
        self.vars = saved;
        match result {
            Err(Flow::Err(e)) => Err(Flow::Err(e)),
            _ => Ok(()),
        }
    }

    fn print(&mut self, v: &Val, pos: usize) -> Result<(), TemplateError> {
        match v {
            Val::Missing | Val::Json(Value::Null) => self.write("<no value>", pos),
            Val::Json(Value::String(s)) => self.write(s, pos),
            Val::Json(v) => {
                let mut s = String::new();
                write_go(&mut s, v);
                self.write(&s, pos)
            }
            Val::Time(t) => self.write(&format_time(t), pos),
        }
    }

    fn var_ref(&self, name: &str) -> Option<&Val> {
        match self.vars.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) => Some(v),
            None => (name == "$").then_some(self.root),
        }
    }

    fn lookup_var(&self, name: &str) -> Val {
        self.var_ref(name).cloned().unwrap_or(Val::Missing)
    }

    fn set_var(&mut self, name: &str, value: Val) {
        if let Some(slot) = self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            slot.1 = value;
        }
    }

    fn pipeline(&mut self, dot: &Val, pipe: &'t Pipe) -> Result<Val, TemplateError> {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.run_pipeline(dot, pipe))
    }

    fn run_pipeline(&mut self, dot: &Val, pipe: &'t Pipe) -> Result<Val, TemplateError> {
        let mut value: Option<Val> = None;
        for cmd in &pipe.cmds {
            value = Some(self.command(dot, cmd, value)?);
        }
        let value = value.unwrap_or(Val::Missing);
        for name in &pipe.decl {
            if pipe.is_assign {
                self.set_var(name, value.clone());
            } else {
                self.vars.push((name.clone(), value.clone()));
            }
        }
        Ok(value)
    }

    fn not_a_function(&self, cmd: &Command, fin: &Option<Val>) -> Result<(), TemplateError> {
        if cmd.args.len() > 1 || fin.is_some() {
            let at = cmd.args[0].describe();
            return Err(self.err(
                cmd.pos,
                &at,
                format!("can't give argument to non-function {at}"),
            ));
        }
        Ok(())
    }

    fn command(
        &mut self,
        dot: &Val,
        cmd: &'t Command,
        fin: Option<Val>,
    ) -> Result<Val, TemplateError> {
        let first = &cmd.args[0];
        let has_args = cmd.args.len() > 1 || fin.is_some();
        match first {
            Arg::Function(pos, name) => self.function(dot, *pos, name, &cmd.args[1..], fin),
            Arg::Field(pos, fields) => self.field_chain(dot, *pos, first, fields, has_args),
            Arg::Variable(pos, parts) if parts.len() > 1 => {
                let receiver = self.var_ref(&parts[0]).unwrap_or(&Val::Missing);
                self.field_chain(receiver, *pos, first, &parts[1..], has_args)
            }
            Arg::Chain(pos, inner, fields) => {
                let receiver = self.chain_receiver(dot, *pos, inner)?;
                self.field_chain(&receiver, *pos, first, fields, has_args)
            }
            Arg::Nil(pos) => Err(self.err(*pos, "nil", "nil is not a command")),
            _ => {
                self.not_a_function(cmd, &fin)?;
                self.arg(dot, first)
            }
        }
    }

    fn chain_receiver(
        &mut self,
        dot: &Val,
        pos: usize,
        inner: &'t Arg,
    ) -> Result<Val, TemplateError> {
        if let Arg::Nil(_) = inner {
            return Err(self.err(pos, "nil", "indirection through explicit nil"));
        }
        self.arg(dot, inner)
    }

    fn field_chain(
        &self,
        receiver: &Val,
        pos: usize,
        node: &Arg,
        fields: &[String],
        has_args: bool,
    ) -> Result<Val, TemplateError> {
        let mut cur = match receiver {
            Val::Missing => Cursor::Missing,
            Val::Json(v) => Cursor::Json(v),
            other => Cursor::Other(other),
        };
        for (i, name) in fields.iter().enumerate() {
            let last = i + 1 == fields.len();
            cur = match cur {
                Cursor::Missing => Cursor::Missing,
                Cursor::Json(Value::Null) => {
                    return Err(self.err(
                        pos,
                        &node.describe(),
                        format!("nil pointer evaluating interface {{}}.{name}"),
                    ));
                }
                Cursor::Json(Value::Object(map)) => {
                    if last && has_args {
                        return Err(self.err(
                            pos,
                            &node.describe(),
                            format!("{name} is not a method but has arguments"),
                        ));
                    }
                    match map.get(name) {
                        Some(v) => Cursor::Json(v),
                        None => Cursor::Missing,
                    }
                }
                Cursor::Json(v) => {
                    let ty = crate::value::json_type_name(v);
                    return Err(self.err(
                        pos,
                        &node.describe(),
                        format!("can't evaluate field {name} in type {ty}"),
                    ));
                }
                Cursor::Other(v) => {
                    let ty = v.type_name();
                    return Err(self.err(
                        pos,
                        &node.describe(),
                        format!("can't evaluate field {name} in type {ty}"),
                    ));
                }
            };
        }
        Ok(match cur {
            Cursor::Missing => Val::Missing,
            Cursor::Json(v) => Val::Json(v.clone()),
            Cursor::Other(v) => v.clone(),
        })
    }

    fn arg(&mut self, dot: &Val, arg: &'t Arg) -> Result<Val, TemplateError> {
        match arg {
            Arg::Dot => Ok(dot.clone()),
            Arg::Nil(_) => Ok(Val::Json(Value::Null)),
            Arg::Bool(b) => Ok(Val::bool(*b)),
            Arg::Int(i) => Ok(Val::int(*i)),
            Arg::Float(f) => Ok(Val::float(*f)),
            Arg::Str(s) => Ok(Val::str(s.clone())),
            Arg::Field(pos, fields) => self.field_chain(dot, *pos, arg, fields, false),
            Arg::Variable(pos, parts) => {
                if parts.len() == 1 {
                    Ok(self.lookup_var(&parts[0]))
                } else {
                    let v = self.var_ref(&parts[0]).unwrap_or(&Val::Missing);
                    self.field_chain(v, *pos, arg, &parts[1..], false)
                }
            }
            Arg::Chain(pos, inner, fields) => {
                let receiver = self.chain_receiver(dot, *pos, inner)?;
                self.field_chain(&receiver, *pos, arg, fields, false)
            }
            Arg::Pipe(p) => self.pipeline(dot, p),
            Arg::Function(pos, name) => self.function(dot, *pos, name, &[], None),
        }
    }

    fn function(
        &mut self,
        dot: &Val,
        pos: usize,
        name: &str,
        args: &'t [Arg],
        fin: Option<Val>,
    ) -> Result<Val, TemplateError> {
        self.step(pos, name)?;
        // and/or evaluate their arguments lazily, stopping at the first that decides.
        if name == "and" || name == "or" {
            let count = args.len() + usize::from(fin.is_some());
            if count == 0 {
                return Err(self.err(
                    pos,
                    name,
                    format!("wrong number of args for {name}: want at least 1 got 0"),
                ));
            }
            let mut last = Val::Missing;
            for a in args {
                last = self.arg(dot, a)?;
                if last.truthy() == (name == "or") {
                    return Ok(last);
                }
            }
            return Ok(fin.unwrap_or(last));
        }
        let mut values = Vec::with_capacity(args.len() + 1);
        for a in args {
            values.push(self.arg(dot, a)?);
        }
        values.extend(fin);
        let result = funcs::call(name, &values).map_err(|e| self.err(pos, name, e))?;
        if crate::value::exceeds(&result, MAX_OUTPUT_BYTES) {
            return Err(self.err(
                pos,
                name,
                format!("{name} made a value larger than the limit of {MAX_OUTPUT_BYTES} bytes"),
            ));
        }
        // Sprig's set changes the map it is given; Go's maps are references, ours are values,
        // so the variable it was given is updated.
        if let (true, Some(Arg::Variable(_, parts))) = (name == "set", args.first())
            && parts.len() == 1
        {
            self.set_var(&parts[0], result.clone());
        }
        Ok(result)
    }
}
