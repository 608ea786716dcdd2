//! A stream's driver ([`stream`]): the old shape, in which the shell sequences the steps of the
//! core's `Stream` machine itself. Calls have left it for [`super::executor`]; a stream follows
//! once the core has a stream machine that hands out effects as a call's does.

pub mod stream;
