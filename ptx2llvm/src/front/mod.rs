//! Front end: PTX text to syntax tree.

pub mod ast;
pub mod lexer;
pub mod parser;

pub use parser::parse;
