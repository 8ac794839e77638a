//! The PTX grammar (chumsky over the tokens of `lexer`).
//!
//! The grammar is generic at the instruction level: `[@[!]p] opcode{.modifier} operand, ...;`.
//! Which opcodes, modifiers and operand kinds are valid together is the checker's business,
//! so the parser accepts every instruction of every ISA version without a table.
//! Errors recover at the next `;` (or before the closing `}`), so one run reports them all.

use super::ast::Spanned;
use super::ast::*;
use super::lexer::{describe_invalid, lex, Token};
use crate::diag::Diagnostic;
use chumsky::input::{Input as _, ValueInput};
use chumsky::prelude::*;

type Extra<'t> = extra::Err<Rich<'t, Token, SimpleSpan>>;

/// Parses a whole module. Returns the tree (possibly partial) and every syntax error.
pub fn parse(source: &str) -> (Module, Vec<Diagnostic>) {
    parse_on_threads(source, 1)
}

/// Tokens below which a module is parsed on one thread (a 48,000-line file has about
/// 750,000; a chunk's thread costs about what 10,000 tokens take to parse).
const MIN_TOKENS_PER_THREAD: usize = 100_000;

/// `parse` on up to `threads` threads: a large module's items are parsed in chunks that
/// end where a function body (or another braced item) closes at the top level, one chunk
/// per thread. Items do not depend on each other's text, so the chunks' items, in order,
/// are the module's; where a chunk has a syntax error the whole module is parsed again on
/// one thread, so that diagnostics (and recovery across the chunk's end) are exactly
/// those of `parse`.
pub fn parse_on_threads(source: &str, threads: usize) -> (Module, Vec<Diagnostic>) {
    let tokens: Vec<(Token, SimpleSpan)> = lex(source).into_iter().map(|(t, s)| (t, SimpleSpan::from(s))).collect();
    let mut diags = Vec::new();
    let mut bad_starts = Vec::new();
    for (t, s) in &tokens {
        if let Token::Error(text) = t {
            // An unterminated comment holds the rest of the input: point at its `/*`.
            let span = if text.starts_with("/*") { s.start..s.start + 2 } else { s.into_range() };
            diags.push(Diagnostic::error(span, describe_invalid(text)));
            bad_starts.push(s.start);
        }
    }
    // Where the input ends inside bad text (an unterminated comment or string), the
    // parser's complaints about the missing rest are consequences, not new mistakes.
    let mut cut_at = match tokens.last() {
        Some((Token::Error(_), s)) if s.end == source.len() => s.start,
        _ => usize::MAX,
    };
    // Backtracking makes parse time grow steeply with nesting; real PTX nests a few
    // levels. Text nested deeper than the limit is reported and not parsed.
    let mut tokens = tokens;
    if let Some(at) = too_deep(&tokens) {
        let span = tokens[at].1;
        diags.push(Diagnostic::error(
            span.into_range(),
            format!("brackets and unary operators nested more than {MAX_NESTING} deep: the rest of the input is not checked"),
        ));
        cut_at = cut_at.min(span.start);
        tokens.truncate(at);
    }
    if diags.is_empty() {
        if let Some(module) = parse_chunks(source, &tokens, threads) {
            return (module, diags);
        }
    }
    let (module, errors) = parse_tokens(source, &tokens, source.len());
    for e in errors {
        let d = rich_to_diag(&e);
        // A bad character is reported once, by the lexer, not again as an unexpected token.
        if !bad_starts.contains(&d.span.start) && d.span.start < cut_at {
            diags.push(d);
        }
    }
    (module.unwrap_or_default(), diags)
}

fn parse_tokens(source: &str, tokens: &[(Token, SimpleSpan)], end: usize) -> (Option<Module>, Vec<Rich<'static, Token, SimpleSpan>>) {
    let input = tokens.split_token_span(SimpleSpan::from(end..end));
    let (module, errors) = module_parser(source).parse(input).into_output_errors();
    (module, errors.into_iter().map(|e| e.into_owned()).collect())
}

/// The module parsed in chunks on up to `threads` threads, if it is large enough to split
/// and every chunk parses without an error.
fn parse_chunks(source: &str, tokens: &[(Token, SimpleSpan)], threads: usize) -> Option<Module> {
    let chunks = threads.min(tokens.len() / MIN_TOKENS_PER_THREAD);
    if chunks < 2 {
        return None;
    }
    // Where a chunk may start: after a `}` that closes the top level, at a token that
    // starts a function (a variable's initializer `= {...}` goes on with `;`).
    let mut starts = vec![];
    let mut depth = 0i64;
    for (i, (t, _)) in tokens.iter().enumerate() {
        match t {
            Token::LBrace => depth += 1,
            Token::RBrace => {
                depth -= 1;
                // The directives a function item starts with (`linkage`, `kind` in
                // `module_parser`).
                if depth == 0
                    && matches!(tokens.get(i + 1), Some((Token::Dot(d), _)) if matches!(d.as_str(), ".visible" | ".entry" | ".func" | ".weak" | ".extern" | ".common"))
                {
                    starts.push(i + 1);
                }
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    // The starts nearest to equal shares of the tokens.
    let mut bounds = vec![0];
    for k in 1..chunks {
        let want = tokens.len() * k / chunks;
        let at = starts.partition_point(|&s| s < want);
        if let Some(&s) = starts.get(at) {
            if s > *bounds.last().expect("not empty") {
                bounds.push(s);
            }
        }
    }
    bounds.push(tokens.len());
    if bounds.len() < 3 {
        return None;
    }
    let parts: Vec<Option<Module>> = std::thread::scope(|scope| {
        let handles: Vec<_> = bounds
            .windows(2)
            .map(|w| {
                let chunk = &tokens[w[0]..w[1]];
                let end = if w[1] == tokens.len() { source.len() } else { tokens[w[1]].1.start };
                scope.spawn(move || match parse_tokens(source, chunk, end) {
                    (Some(m), errors) if errors.is_empty() => Some(m),
                    _ => None,
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    let mut items = vec![];
    for part in parts {
        items.extend(part?.items);
    }
    Some(Module { items })
}

/// The deepest nesting of `(`, `[`, `{` and chained unary operators the parser accepts.
const MAX_NESTING: usize = 64;

/// The index of the first token nested deeper than `MAX_NESTING`, if any.
fn too_deep(tokens: &[(Token, SimpleSpan)]) -> Option<usize> {
    let mut depth = 0usize;
    let mut unary_run = 0usize;
    for (i, (t, _)) in tokens.iter().enumerate() {
        match t {
            Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
            Token::RParen | Token::RBracket | Token::RBrace => depth = depth.saturating_sub(1),
            _ => {}
        }
        unary_run = if matches!(t, Token::Minus | Token::Bang | Token::Tilde) { unary_run + 1 } else { 0 };
        if depth > MAX_NESTING || unary_run > MAX_NESTING {
            return Some(i);
        }
    }
    None
}

fn rich_to_diag(e: &Rich<'_, Token, SimpleSpan>) -> Diagnostic {
    let span = e.span().into_range();
    let found = match e.found() {
        Some(t) => format!("`{t}`"),
        None => "end of input".to_string(),
    };
    let mut expected: Vec<String> = e
        .expected()
        .filter_map(|p| match p {
            chumsky::error::RichPattern::Token(t) => Some(format!("`{}`", &**t)),
            chumsky::error::RichPattern::Label(l) => Some(l.to_string()),
            chumsky::error::RichPattern::EndOfInput => Some("end of input".into()),
            _ => None,
        })
        .collect();
    expected.sort();
    expected.dedup();
    let msg = match e.reason() {
        chumsky::error::RichReason::Custom(m) => m.to_string(),
        // The statement could have ended here: most likely its `;` is missing.
        _ if expected.iter().any(|x| x == "`;`") => {
            let or_comma = if expected.iter().any(|x| x == "`,`") { "`,` or " } else { "" };
            format!("expected {or_comma}`;` before {found}")
        }
        _ if expected.is_empty() => format!("unexpected {found}"),
        _ => format!("unexpected {found}, expected {}", expected.join(", ")),
    };
    Diagnostic::error(span, msg)
}

fn sp(s: SimpleSpan) -> Span {
    s.into_range()
}

fn ident<'t, I>() -> impl Parser<'t, I, Spanned<String>, Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    select! { Token::Ident(s) => s }.map_with(|s, e| Spanned::new(s, sp(e.span()))).labelled("identifier")
}

fn dot_any<'t, I>() -> impl Parser<'t, I, Spanned<String>, Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    select! { Token::Dot(s) => s }.map_with(|s, e| Spanned::new(s, sp(e.span())))
}

fn dot<'t, I>(name: &'static str) -> impl Parser<'t, I, (), Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    just(Token::Dot(name.to_string())).ignored().labelled(name)
}

fn int<'t, I>() -> impl Parser<'t, I, u64, Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    select! { Token::Int(i) => i.value }.labelled("integer")
}

fn semi<'t, I>() -> impl Parser<'t, I, (), Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    just(Token::Semi).ignored().labelled("`;`")
}

/// Constant expressions with C precedence.
fn expr<'t, I>() -> impl Parser<'t, I, Expr, Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    recursive(|expr| {
        let literal = select! {
            Token::Int(i) => Expr::Int(i.value, i.unsigned),
            Token::F32Bits(b) => Expr::F32(b),
            Token::F64Bits(b) => Expr::F64(b),
            Token::Float(b) => Expr::F64(b),
        };
        let generic =
            just(Token::Ident("generic".into())).ignore_then(ident().delimited_by(just(Token::LParen), just(Token::RParen))).map(|n| Expr::Generic(n.node));
        let symbol = select! { Token::Ident(s) if !s.starts_with('%') => Expr::Symbol(s) };
        let primary = choice((literal, generic, symbol, expr.clone().delimited_by(just(Token::LParen), just(Token::RParen)))).labelled("constant expression");
        let unary = choice((just(Token::Minus).to(UnaryOp::Neg), just(Token::Tilde).to(UnaryOp::Not), just(Token::Bang).to(UnaryOp::LogicalNot)))
            .repeated()
            .foldr(primary, |op, e| Expr::Unary(op, Box::new(e)));

        fn level<'t, I, P>(next: P, ops: Vec<(Token, BinaryOp)>) -> impl Parser<'t, I, Expr, Extra<'t>> + Clone
        where
            I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
            P: Parser<'t, I, Expr, Extra<'t>> + Clone,
        {
            let op = choice(ops.into_iter().map(|(tok, op)| just(tok).to(op)).collect::<Vec<_>>());
            next.clone().foldl(op.then(next).repeated(), |a, (op, b)| Expr::Binary(op, Box::new(a), Box::new(b)))
        }
        let mul = level(unary.boxed(), vec![(Token::Star, BinaryOp::Mul), (Token::Slash, BinaryOp::Div), (Token::Ident("%".into()), BinaryOp::Rem)]);
        let add = level(mul.boxed(), vec![(Token::Plus, BinaryOp::Add), (Token::Minus, BinaryOp::Sub)]);
        let shift = level(add.boxed(), vec![(Token::Shl, BinaryOp::Shl), (Token::Shr, BinaryOp::Shr)]);
        let and = level(shift.boxed(), vec![(Token::Amp, BinaryOp::And)]);
        let xor = level(and.boxed(), vec![(Token::Caret, BinaryOp::Xor)]);
        level(xor.boxed(), vec![(Token::Pipe, BinaryOp::Or)]).boxed()
    })
}

fn operand<'t, I>() -> impl Parser<'t, I, Spanned<Operand>, Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    recursive(|operand| {
        let name = ident().then(dot_any().or_not()).map(|(n, c)| Operand::Name { name: n.node, component: c.map(|c| c.node[1..].to_string()) });
        // `p|q`, and `_` for a destination to discard (`%p|_`, `_|%q`).
        let pair_part = ident().map(|n| n.node).or(just(Token::Underscore).to("_".to_string()));
        let pair = pair_part.clone().then_ignore(just(Token::Pipe)).then(pair_part.clone()).map(|(a, b)| Operand::Pair(a, b));
        let not = just(Token::Bang).ignore_then(ident()).map(|n| Operand::Not(n.node));
        let neg = just(Token::Minus).ignore_then(name.clone().map_with(|o, e| Spanned::new(o, sp(e.span())))).map(|n| Operand::Neg(Box::new(n)));
        let sink = just(Token::Underscore).to(Operand::Sink);
        let list = |open, close| operand.clone().separated_by(just(Token::Comma)).allow_trailing().collect::<Vec<_>>().delimited_by(just(open), just(close));
        // Inside brackets: `[base]`, `[base+off]`, `[base+-off]`, `[imm]`, or a list (`[tex, {x, y}]`).
        let offset = choice((just(Token::Plus).ignore_then(expr()), just(Token::Minus).ignore_then(expr()).map(|e| Expr::Unary(UnaryOp::Neg, Box::new(e)))));
        let base = choice((name.clone(), expr().map(Operand::Expr))).map_with(|o, e| Spanned::new(o, sp(e.span())));
        let address = base
            .then(offset.or_not())
            .map(|(b, off)| (b, off))
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            // `[a].unified` (ld/st of a `.unified` variable): every address here is a host
            // address, so the attribute changes nothing.
            .then_ignore(dot(".unified").or_not())
            .try_map(|(b, off), span| {
                let off = match off {
                    None => 0,
                    Some(e) => const_eval(&e).ok_or_else(|| Rich::custom(span, "address offset must be a constant integer"))? as i64,
                };
                Ok(Operand::Address(Box::new(b), off))
            });
        let bracket_list = list(Token::LBracket, Token::RBracket).map(Operand::Vector);
        // `sym+4`, `$stack-8`: an address constant (the symbol's address plus an offset).
        let symbol_offset = select! { Token::Ident(s) => s }
            .then(choice((just(Token::Plus).to(BinaryOp::Add), just(Token::Minus).to(BinaryOp::Sub))).then(expr()).repeated().at_least(1).collect::<Vec<_>>())
            .map(|(sym, rest)| {
                let e = rest.into_iter().fold(Expr::Symbol(sym), |a, (op, b)| Expr::Binary(op, Box::new(a), Box::new(b)));
                Operand::Expr(e)
            });
        choice((
            pair,
            sink,
            not,
            neg,
            symbol_offset,
            name,
            address,
            bracket_list,
            // `{a, b}` or `{a, b}|p`: the list is parsed once (trying the two forms as
            // separate alternatives re-parses nested braces exponentially often).
            list(Token::LBrace, Token::RBrace)
                .map_with(|v, e| Spanned::new(Operand::Vector(v), sp(e.span())))
                .then(just(Token::Pipe).ignore_then(pair_part).or_not())
                .map(|(v, p)| match p {
                    Some(p) => Operand::VectorPair(Box::new(v), p),
                    None => v.node,
                }),
            // `(1 << 4) - 1` is a constant; `(param0)` (a bare name) is a call's argument list.
            expr().try_map(|e, span| match e {
                Expr::Symbol(_) => Err(Rich::custom(span, "a parenthesized name is an argument list")),
                e => Ok(Operand::Expr(e)),
            }),
            list(Token::LParen, Token::RParen).map(Operand::List),
        ))
        .map_with(|o, e| Spanned::new(o, sp(e.span())))
        .labelled("operand")
    })
}

/// `sym`, `sym+4`, `sym-8+2`, `generic(sym)+4`: the symbol an address constant names, its
/// byte offset (wrapping), and whether it was written `generic(...)`.
pub fn symbol_offset(e: &Expr) -> Option<(String, i64, bool)> {
    match e {
        Expr::Symbol(s) => Some((s.clone(), 0, false)),
        Expr::Generic(s) => Some((s.clone(), 0, true)),
        Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
            let (s, o, generic) = symbol_offset(a)?;
            let d = const_eval(b)? as i64;
            Some((s, if *op == BinaryOp::Add { o.wrapping_add(d) } else { o.wrapping_sub(d) }, generic))
        }
        _ => None,
    }
}

/// Evaluates a constant integer expression (wrapping two's complement arithmetic).
pub fn const_eval(e: &Expr) -> Option<u64> {
    Some(match e {
        Expr::Int(v, _) => *v,
        Expr::Unary(UnaryOp::Neg, a) => const_eval(a)?.wrapping_neg(),
        Expr::Unary(UnaryOp::Not, a) => !const_eval(a)?,
        Expr::Unary(UnaryOp::LogicalNot, a) => (const_eval(a)? == 0) as u64,
        Expr::Binary(op, a, b) => {
            let (a, b) = (const_eval(a)?, const_eval(b)?);
            match op {
                BinaryOp::Add => a.wrapping_add(b),
                BinaryOp::Sub => a.wrapping_sub(b),
                BinaryOp::Mul => a.wrapping_mul(b),
                BinaryOp::Div => a.checked_div(b)?,
                BinaryOp::Rem => a.checked_rem(b)?,
                BinaryOp::Shl => a.checked_shl(b as u32).unwrap_or(0),
                BinaryOp::Shr => a.checked_shr(b as u32).unwrap_or(0),
                BinaryOp::And => a & b,
                BinaryOp::Or => a | b,
                BinaryOp::Xor => a ^ b,
            }
        }
        _ => return None,
    })
}

fn instruction<'t, I>() -> impl Parser<'t, I, Instruction, Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    let guard = just(Token::At).ignore_then(just(Token::Bang).or_not()).then(ident()).map(|(neg, pred)| Guard { negated: neg.is_some(), pred });
    guard
        .or_not()
        .then(ident())
        .then(dot_any().repeated().collect::<Vec<_>>())
        .then(operand().separated_by(just(Token::Comma)).collect::<Vec<_>>())
        .then_ignore(semi())
        .map_with(|(((guard, opcode), modifiers), operands), e| Instruction { guard, opcode, modifiers, operands, span: sp(e.span()) })
}

/// Attributes between a state space and a variable name: `.align 8`, `.v4`, `.b32`, `.ptr .global`.
fn var_decl<'t, I>() -> impl Parser<'t, I, VarDecl, Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    let linkage =
        choice((dot(".visible").to(Linkage::Visible), dot(".extern").to(Linkage::Extern), dot(".weak").to(Linkage::Weak), dot(".common").to(Linkage::Common)));
    let space = select! { Token::Dot(s) if is_state_space(&s) => s }.map_with(|s, e| Spanned::new(s, sp(e.span()))).labelled("state space");
    let attr = dot_any().then(int().or_not());
    let init = recursive(|init| {
        // `.samplerref s = { filter_mode = nearest, addr_mode_0 = clamp_to_edge }`
        let field = ident()
            .then_ignore(just(Token::Eq))
            .then(choice((ident(), int().map_with(|v, e| Spanned::new(v.to_string(), sp(e.span()))))))
            .map_with(|(name, value), e| Initializer::Field(name, value, sp(e.span())));
        choice((
            field,
            init.separated_by(just(Token::Comma))
                .collect::<Vec<_>>()
                .delimited_by(just(Token::LBrace), just(Token::RBrace))
                .map_with(|l, e| Initializer::List(l, sp(e.span()))),
            expr().map_with(|x, e| Initializer::Expr(Spanned::new(x, sp(e.span())))),
        ))
    });
    // The ISA text allows a constant expression as an array size, but NVIDIA's ptxas
    // takes only an integer literal; an expression is reported, and its value used.
    let dims = just(Token::LBracket)
        .ignore_then(expr().map_with(|e, x| (e, x.span())).or_not())
        .then_ignore(just(Token::RBracket))
        .validate(|e, _, emitter| match e {
            None => None,
            Some((Expr::Int(v, _), _)) => Some(v),
            Some((e, span)) => {
                let value = const_eval(&e);
                let msg = if value.is_some() { "array sizes must be integer literals, not expressions" } else { "array size must be a constant integer" };
                emitter.emit(Rich::custom(span, msg));
                Some(value.unwrap_or(1))
            }
        })
        .repeated()
        .collect::<Vec<_>>();
    let name = ident()
        .then(int().delimited_by(just(Token::Lt), just(Token::Gt)).or_not())
        .then(dims)
        .then(just(Token::Eq).ignore_then(init).or_not())
        .map(|(((name, range), dims), init)| VarName { name, range: range.map(|r| u32::try_from(r).unwrap_or(u32::MAX)), dims, init });
    linkage
        .or_not()
        .then(space)
        .then(attr.repeated().collect::<Vec<_>>().validate(|attrs, _, emitter| {
            // `.v3` and friends: reported, and the declaration kept as a scalar one.
            attrs
                .into_iter()
                .filter(|(a, n): &(Spanned<String>, Option<u64>)| {
                    let v = a.node.as_str();
                    let bad =
                        n.is_none() && v.len() > 2 && v.starts_with(".v") && v[2..].bytes().all(|b| b.is_ascii_digit()) && !matches!(v, ".v2" | ".v4" | ".v8");
                    if bad {
                        emitter.emit(Rich::custom(a.span.clone().into(), format!("`{v}` is not a vector size: vectors are `.v2`, `.v4` or `.v8`")));
                    }
                    !bad
                })
                .collect::<Vec<_>>()
        }))
        .then(name.separated_by(just(Token::Comma)).at_least(1).collect::<Vec<_>>())
        .try_map_with(|(((linkage, space), attrs), names), e| {
            let mut decl = VarDecl {
                linkage,
                space,
                align: None,
                vector: None,
                ptr_attrs: vec![],
                ty: Spanned::new(String::new(), sp(e.span())),
                names,
                span: sp(e.span()),
            };
            for (a, n) in attrs {
                match (a.node.as_str(), n) {
                    (".align", Some(n)) => decl.align = Some(n as u32),
                    (".align", None) => return Err(Rich::custom(a.span.into(), "`.align` needs a byte count")),
                    (".v2", None) => decl.vector = Some(2),
                    (".v4", None) => decl.vector = Some(4),
                    (".v8", None) => decl.vector = Some(8),
                    (_, Some(_)) => return Err(Rich::custom(a.span.into(), format!("unexpected number after `{}`", a.node))),
                    (s, None) if is_type_name(s) && decl.ty.node.is_empty() => decl.ty = a,
                    _ => decl.ptr_attrs.push(a),
                }
            }
            if decl.ty.node.is_empty() {
                // A misspelled type (`.u33`): keep it so the checker reports it by name and
                // still declares the names (no cascade of "undeclared" errors).
                match decl.ptr_attrs.pop() {
                    Some(a) if a.node != ".ptr" => decl.ty = a,
                    _ => return Err(Rich::custom(e.span(), "declaration has no type")),
                }
            }
            Ok(decl)
        })
}

pub fn is_state_space(s: &str) -> bool {
    matches!(s, ".reg" | ".sreg" | ".const" | ".global" | ".local" | ".param" | ".shared" | ".tex" | ".surf")
}

pub fn is_type_name(s: &str) -> bool {
    matches!(
        s,
        ".pred"
            | ".b8"
            | ".b16"
            | ".b32"
            | ".b64"
            | ".b128"
            | ".u8"
            | ".u16"
            | ".u32"
            | ".u64"
            | ".s8"
            | ".s16"
            | ".s32"
            | ".s64"
            | ".f16"
            | ".f16x2"
            | ".bf16"
            | ".bf16x2"
            | ".f32"
            | ".f64"
            | ".e4m3"
            | ".e5m2"
            | ".e4m3x2"
            | ".e5m2x2"
            | ".tf32"
            | ".texref"
            | ".samplerref"
            | ".surfref"
    )
}

/// Anything between balanced braces, for directives whose content we skip (`.section`).
fn skip_braced<'t, I>() -> impl Parser<'t, I, (), Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    recursive(|braced| choice((braced, none_of([Token::LBrace, Token::RBrace]).ignored())).repeated().delimited_by(just(Token::LBrace), just(Token::RBrace)))
}

/// `.loc 1 2 3` and the PTX 7 form `.loc 1 2 3, function_name $L, inlined_at 1 4 5`: the
/// file index, line and column (missing numbers are 0).
fn loc_directive<'t, I>() -> impl Parser<'t, I, (u64, u64, u64), Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    let extra = just(Token::Comma).ignore_then(choice((
        just(Token::Ident("function_name".into())).ignore_then(ident()).ignored(),
        just(Token::Ident("inlined_at".into())).ignore_then(int().repeated().at_least(1)).ignored(),
    )));
    dot(".loc")
        .ignore_then(int().repeated().at_least(1).collect::<Vec<_>>())
        .then_ignore(extra.repeated())
        .map(|n| (n[0], n.get(1).copied().unwrap_or(0), n.get(2).copied().unwrap_or(0)))
}

fn statements<'t, I>() -> impl Parser<'t, I, Vec<Statement>, Extra<'t>> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
{
    recursive(|stmts| {
        let label = ident().then_ignore(just(Token::Colon));
        // `name: .callprototype ...;` and `name: .branchtargets ...;` (checked in #4's work).
        let pragma = dot(".pragma")
            .ignore_then(select! { Token::Str(_) => () }.separated_by(just(Token::Comma)))
            .then_ignore(semi())
            .map_with(|_, e| Statement::Ignored(sp(e.span())));
        let loc = loc_directive().map_with(|(file, line, col), e| Statement::Loc { file, line, col, span: sp(e.span()) });
        let prototype_label = ident().then_ignore(just(Token::Colon)).then(choice((
            dot(".callprototype").to(DirectiveKind::CallPrototype),
            dot(".branchtargets").to(DirectiveKind::BranchTargets),
            dot(".calltargets").to(DirectiveKind::CallTargets),
        )));
        let block = stmts.delimited_by(just(Token::LBrace), just(Token::RBrace)).map_with(|s, e| Statement::Block(s, sp(e.span())));
        // `name: .callprototype ...;`, `name: .branchtargets L1, L2;`, `name: .calltargets f, g;`
        let labelled_directive = prototype_label
            .then(none_of([Token::Semi, Token::RBrace]).map_with(|t, e| (t, sp(e.span()))).repeated().collect::<Vec<_>>())
            .then_ignore(semi())
            .map_with(|((label, kind), body), e| {
                // `.callprototype (.param .b32 _) _ (.param .b32 _, .param .u64 _)`: count the
                // parameter declarations before and after the `_` that stands for the name.
                let mut signature = (0, 0);
                let mut after_name = false;
                let mut depth = 0u32;
                for (t, _) in &body {
                    match t {
                        Token::LParen => depth += 1,
                        Token::RParen => depth = depth.saturating_sub(1),
                        Token::Underscore | Token::Ident(_) if depth == 0 => after_name = true,
                        Token::Dot(d) if d == ".param" || d == ".reg" => {
                            if after_name {
                                signature.1 += 1
                            } else {
                                signature.0 += 1
                            }
                        }
                        _ => {}
                    }
                }
                let names = body
                    .into_iter()
                    .filter_map(|(t, span)| match t {
                        Token::Ident(n) if kind != DirectiveKind::CallPrototype => Some(Spanned::new(n, span)),
                        _ => None,
                    })
                    .collect();
                Statement::LabelledDirective { label, kind, names, signature, span: sp(e.span()) }
            });
        // A function definition inside a body (a helper pasted in, or the `}` before it
        // forgotten): reported once, and its signature and body skipped.
        let nested_function = choice((dot(".visible"), dot(".extern"), dot(".weak")))
            .or_not()
            .ignore_then(choice((dot(".func"), dot(".entry"))))
            .map_with(|_, e| e.span())
            .then_ignore(none_of([Token::Semi, Token::LBrace, Token::RBrace]).repeated())
            .then_ignore(choice((skip_braced(), semi())))
            .validate(|span: SimpleSpan, _, emitter| {
                emitter.emit(Rich::custom(span, "functions cannot be defined inside a function body"));
                Statement::Ignored(sp(span))
            });
        let statement = choice((
            labelled_directive,
            label.map(Statement::Label),
            nested_function,
            var_decl().then_ignore(semi()).map(Statement::Var),
            pragma,
            loc,
            block,
            instruction().map(Statement::Instruction),
        ))
        .recover_with(via_parser(
            choice((semi(), none_of([Token::Semi, Token::RBrace, Token::LBrace]).repeated().at_least(1).then(semi().or_not()).ignored()))
                .map_with(|_, e| Statement::Ignored(sp(e.span()))),
        ));
        statement.repeated().collect::<Vec<_>>()
    })
}

fn module_parser<'t, 's: 't, I>(source: &'s str) -> impl Parser<'t, I, Module, Extra<'t>> + 's
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    't: 's,
{
    let version = dot(".version")
        .ignore_then(select! { Token::Float(_) => true, Token::Int(_) => false }.validate(move |has_minor, e, emitter| {
            let text = &source[sp(e.span())];
            if !has_minor {
                emitter.emit(Rich::custom(e.span(), format!("`.version {text}` needs a minor version number, as in `{text}.0`")));
            }
            let mut it = text.split('.');
            let major = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            let minor = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            (major, minor)
        }))
        .map_with(|(major, minor), e| Item::Version { major, minor, span: sp(e.span()) });
    let target = dot(".target")
        .ignore_then(ident().separated_by(just(Token::Comma)).at_least(1).collect::<Vec<_>>())
        .map_with(|targets, e| Item::Target { targets, span: sp(e.span()) });
    let address_size = dot(".address_size").ignore_then(int()).map_with(|bits, e| Item::AddressSize { bits: bits as u32, span: sp(e.span()) });
    let file = dot(".file")
        .ignore_then(int())
        .then(select! { Token::Str(path) => path })
        .then_ignore(just(Token::Comma).ignore_then(int()).repeated())
        .map_with(|(index, path), e| Item::File { index, path, span: sp(e.span()) });
    let section = dot(".section").ignore_then(dot_any()).ignore_then(skip_braced()).map_with(|_, e| Item::Ignored { span: sp(e.span()) });
    let pragma = dot(".pragma")
        .ignore_then(select! { Token::Str(_) => () }.separated_by(just(Token::Comma)))
        .then_ignore(semi())
        .map_with(|_, e| Item::Ignored { span: sp(e.span()) });
    let alias = dot(".alias")
        .ignore_then(ident())
        .then_ignore(just(Token::Comma))
        .then(ident())
        .then_ignore(semi())
        .map_with(|(alias, aliasee), e| Item::Alias { alias, aliasee, span: sp(e.span()) });

    let linkage =
        choice((dot(".visible").to(Linkage::Visible), dot(".extern").to(Linkage::Extern), dot(".weak").to(Linkage::Weak), dot(".common").to(Linkage::Common)));
    let kind = choice((dot(".entry").to(FunctionKind::Entry), dot(".func").to(FunctionKind::Func)));
    let params = var_decl().separated_by(just(Token::Comma)).allow_trailing().collect::<Vec<_>>().delimited_by(just(Token::LParen), just(Token::RParen));
    let fn_directive = select! { Token::Dot(s) if matches!(s.as_str(),
    ".maxntid" | ".reqntid" | ".minnctapersm" | ".maxnctapersm" | ".maxnreg" | ".noreturn"
    | ".maxclusterrank" | ".reqnctapercluster" | ".explicitcluster" | ".blocksareclusters") => s }
    .map_with(|s, e| Spanned::new(s, sp(e.span())))
    .then(int().separated_by(just(Token::Comma)).collect::<Vec<_>>())
    .map(|(name, args)| FunctionDirective { name, args })
    .or(dot(".pragma")
        .ignore_then(select! { Token::Str(_) => () }.separated_by(just(Token::Comma)))
        .then_ignore(semi())
        .map_with(|_, e| FunctionDirective { name: Spanned::new(".pragma".into(), sp(e.span())), args: vec![] }));
    let body = statements()
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .map(Some)
        .or(semi().to(None))
        // nvopencc wrote function declarations without a `;`.
        .or(empty().to(None));
    let function = linkage
        .or_not()
        .then(kind)
        .then(params.clone().or_not())
        .then(ident())
        .then(params.or_not())
        .then(fn_directive.repeated().collect::<Vec<_>>())
        .then(body)
        .map_with(|((((((linkage, kind), returns), name), params), directives), body), e| {
            Item::Function(Function {
                linkage,
                kind,
                name,
                returns: returns.unwrap_or_default(),
                params: params.unwrap_or_default(),
                directives,
                body,
                span: sp(e.span()),
            })
        });
    let global = var_decl().then_ignore(semi()).map(Item::Var);
    let item = choice((version, target, address_size, file, section, pragma, alias, function, global)).recover_with(via_parser(
        choice((
            semi(),
            none_of([Token::Semi, Token::LBrace, Token::RBrace]).repeated().at_least(1).then(semi()).ignored(),
            none_of([Token::Semi, Token::LBrace, Token::RBrace]).repeated().then(skip_braced()).ignored(),
        ))
        .map_with(|_, e| Item::Ignored { span: sp(e.span()) }),
    ));
    item.repeated().collect::<Vec<_>>().map(|items| Module { items }).then_ignore(end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_kernel() {
        let src = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<7>;
  .shared .align 4 .b8 sdata[1024];
  mov.u32 %r1, %tid.x;
  setp.lt.s32 %p1, %r1, 4;
  @!%p1 bra $L__BB0_2;
  ld.shared.u32 %r2, [sdata+4];
$L__BB0_2:
  ret;
}
"#;
        let (m, d) = parse(src);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(m.items.len(), 4);
        let Item::Function(f) = &m.items[3] else { panic!() };
        assert_eq!(f.params.len(), 2);
        assert_eq!(f.body.as_ref().unwrap().len(), 9);
    }

    /// A module of `n` kernels and a function, with an initialized variable between them.
    fn many_kernels(n: usize, bad_at: Option<usize>) -> String {
        let mut src = String::from(".version 7.0\n.target sm_80\n.address_size 64\n.global .u32 table[2] = {1, 2};\n");
        src += ".func (.reg .u32 r) twice(.reg .u32 a) { add.u32 r, a, a; ret; }\n";
        for k in 0..n {
            src += &format!(".visible .entry k{k}(.param .u64 p)\n{{\n .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n");
            for i in 0..40 {
                src += &format!(" mov.u32 %r1, %tid.x;\n add.u32 %r2, %r1, {i};\n ld.param.u64 %rd1, [p];\n");
            }
            if bad_at == Some(k) {
                src += " add.u32 %r1, , ;\n";
            }
            src += " ret;\n}\n";
            if k % 7 == 3 {
                src += &format!(".global .u32 v{k}[2] = {{{k}, 2}};\n");
            }
        }
        src
    }

    #[test]
    fn chunked_parse_is_the_whole_parse() {
        let src = many_kernels(320, None);
        let (whole, d1) = parse(&src);
        let (chunked, d2) = parse_on_threads(&src, 4);
        assert!(d1.is_empty() && d2.is_empty());
        assert!(lex(&src).len() > 2 * MIN_TOKENS_PER_THREAD, "the test module must be large enough to split");
        assert!(parse_chunks(&src, &lex(&src).into_iter().map(|(t, s)| (t, SimpleSpan::from(s))).collect::<Vec<_>>(), 4).is_some());
        assert_eq!(format!("{whole:?}"), format!("{chunked:?}"));
        // An error in a chunk: the diagnostics are those of the whole parse.
        let bad = many_kernels(320, Some(250));
        let (_, d1) = parse(&bad);
        let (_, d2) = parse_on_threads(&bad, 4);
        assert_eq!(d1.len(), 1);
        assert_eq!(format!("{d1:?}"), format!("{d2:?}"));
    }

    #[test]
    fn recovers_after_errors() {
        let src = ".version 7.0\n.target sm_80\n.entry k() {\n add.s32 %r1, , ;\n mov.u32 %r1 %r2;\n ret;\n ld.u32 %r1, [%r2+];\n}\n";
        let (_, d) = parse(src);
        assert_eq!(d.len(), 3, "{d:?}");
    }
}
